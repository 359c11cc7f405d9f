"""``novelty.verdict`` and ``novelty.verdict_batch``: a novelty claim against prior work.

The reference design makes one call per (claim × candidate). ``novelty.verdict_batch`` sends
one claim with several candidates and asks for one verdict per candidate, each judged on its
own with the same rules, labels and axes; its output is split back into per-pair verdicts, so
metrics see exactly the per-pair records of the single-pair step. Replies are normalised by
:func:`~prism_review.judge.novelty.normalise.normalize_verdict` (N5); a missing pair is
re-asked once (``check``) and otherwise left unscored (N4).

Offline verdict rule (:func:`offline_verdicts`), per pair: the candidate's **relative
closeness** δ to what the claim is about (:mod:`~prism_review.judge.novelty.closeness`:
all-MiniLM-L6-v2 cosine of the claim's subject with the candidate, minus the same cosine with
the paper itself in the candidate's form), and ``named`` = the claim names this candidate's title:

================  =====================  ======================  ===========================
claim stance      δ ≥ −0.05 or named     −0.15 ≤ δ < −0.05       δ < −0.15
================  =====================  ======================  ===========================
not_novel         SUPPORTED (+2)         OVERSTATED (+1)         AMBIGUOUS (0) if δ ≥ −0.3,
                                                                 else UNSUPPORTED (−2)
somewhat_novel    SUPPORTED (+2)         SUPPORTED (+2)          UNDERSTATED (−1)
novel             UNSUPPORTED (−2)       OVERSTATED (+1)         SUPPORTED (+2)
unclear           AMBIGUOUS (0)          AMBIGUOUS (0)           AMBIGUOUS (0)
================  =====================  ======================  ===========================

A claim that the work is not novel is borne out by prior work about as close to its subject as
the paper itself, and refuted when the retrieved work is far from it; a claim of novelty is the
reverse; graded claims sit in between. The bands are fixed in cosine units relative to the paper
under review (δ = 0: as close as the paper itself) and are not fitted to labels (none exist for
verdicts): −0.05 reads "as close as the paper, up to the int8 model's noise (≈ 0.03)", −0.15
"clearly related", −0.3 "far: the gap between related and unrelated scientific texts".

A pair whose closeness cannot be computed (the candidate has no text, or the claim's subject
has no similarity with the paper) gets **no verdict**: the pair is unscored, and a claim with no
scored pair is unscored (final score None) rather than judged by its stance.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from prism_review.judge.base import MANY_ITEMS_REPLY_TOKENS, ChatMessage, JudgeStep, OfflineUnscored
from prism_review.judge.fence import fence
from prism_review.judge.novelty import prompts
from prism_review.judge.novelty.closeness import Closeness, pair_closeness
from prism_review.judge.novelty.normalise import (
    ASKED_LABELS,
    CALIBRATIONS,
    STANCE_SCORES,
    heuristic_classification,
    normalize_verdict,
)

#: output tokens per (claim, candidate) pair: the reference's per-call budget
VERDICT_TOKENS = 800

HIGH, MID, LOW = -0.05, -0.15, -0.30


def verdict_enums(compat: bool) -> dict[str, list[Any]]:
    """The verdict values the prompt defines, as schema enums; ``--compat`` leaves them free,
    because the original read whatever label its model wrote (first-substring match, N5)."""
    if compat:
        return {}
    return {"stance_alignment": list(STANCE_SCORES), "calibration": list(CALIBRATIONS),
            "score": [STANCE_SCORES[s] for s in STANCE_SCORES], "label": list(ASKED_LABELS.values())}


_FLAG = {"type": "integer", "enum": [0, 1]}
_CLASSIFICATION: dict[str, Any] = {"type": "object", "properties": {"claim": _FLAG, "proof": _FLAG},
                                   "required": ["claim", "proof"], "additionalProperties": False}


class VerdictOut(BaseModel):
    """One claim-vs-candidate verdict (lenient types; normalised in finalize)."""

    # the values are read leniently (Any); the schema states the types a model is asked for
    review_sentence_id: Any = Field(default="", json_schema_extra={"type": "string"})
    related_paper_id: Any = Field(default="", json_schema_extra={"type": "string"})
    classification: Any = Field(default=None, description='{"claim": 0|1, "proof": 0|1}',
                                json_schema_extra=_CLASSIFICATION)
    # the values the prompt defines are enums in clean mode only (:func:`verdict_enums`)
    stance_alignment: Any = Field(default=None, json_schema_extra={"type": "string"})
    calibration: Any = Field(default=None, json_schema_extra={"type": "string"})
    score: Any = Field(default=None, description="2, 1, 0 or -2", json_schema_extra={"type": "integer"})
    label: Any = Field(default=None, json_schema_extra={"type": "string"})
    explanation: Any = Field(default="", json_schema_extra={"type": "string"})


class CandidateText(BaseModel):
    """A candidate rendered for the judge, with its pool relevance."""

    cand_id: str
    text: str
    relevance: float | None = None


class VerdictClaim(BaseModel):
    """The claim side shared by both verdict inputs: the claim and the paper it is about."""

    claim_id: str
    claim: str
    claim_stance: str = "unclear"
    prior_work_strings: list[str] = Field(default_factory=list)
    paper_context: str
    contributions: list[str] = Field(default_factory=list)
    #: the paper's title and abstract: the offline judge's yardstick of closeness (not in prompts)
    paper_title: str = ""
    paper_abstract: str = ""
    compat: bool = False


class VerdictInput(VerdictClaim):
    """One claim and one candidate (``novelty.verdict``)."""

    candidate: CandidateText


class VerdictBatchInput(VerdictClaim):
    """One claim and several candidates (``novelty.verdict_batch``)."""

    candidates: list[CandidateText]


class VerdictBatchOutput(BaseModel):
    """One verdict per candidate id."""

    verdicts: list[VerdictOut] = Field(default_factory=list)


def _named(strings: list[str], text: str) -> bool:
    title = text.split("\n", 1)[0].lower()
    return any(len(s) >= 6 and s.lower().strip(" .") in title for s in strings)


def offline_verdicts(inp: VerdictBatchInput) -> list[dict[str, Any]]:
    """The documented offline rule for every candidate of ``inp`` that can be informed (module
    table); a candidate whose closeness cannot be computed gets no verdict (unscored)."""
    near = pair_closeness(inp.claim, inp.paper_title, inp.paper_abstract, [c.text for c in inp.candidates])
    claim, proof = heuristic_classification(inp.claim, compat=inp.compat)
    out = []
    for cand, cl in zip(inp.candidates, near, strict=True):
        if cl is None:
            continue
        named = _named(inp.prior_work_strings, cand.text)
        label = offline_label(inp.claim_stance, cl.delta, named)
        out.append({
            "review_sentence_id": inp.claim_id,
            "related_paper_id": cand.cand_id,
            "classification": {"claim": claim, "proof": proof},
            "label": label,
            "explanation": _explain(inp.claim_stance, cl, named, label),
        })
    return out


def _explain(stance: str, cl: Closeness, named: bool, label: str) -> str:
    form = "title and abstract" if cl.has_abstract else "title only"
    subject = "the claim" if cl.subject == "claim" else "the paper (the claim names nothing specific)"
    return (f"offline rule: stance {stance}; closeness to {subject}: cosine {cl.cosine:.2f} against "
            f"{cl.self_cosine:.2f} for the paper itself ({form}), delta {cl.delta:+.2f}"
            f"{'; named in the claim' if named else ''} -> {label}")


def offline_label(stance: str, delta: float, named: bool = False) -> str:
    """The verdict label of the offline rule (module docstring table)."""
    band = "high" if (named or delta >= HIGH) else "mid" if delta >= MID else "low"
    if stance == "not_novel":
        if band == "low":
            return "AMBIGUOUS" if delta >= LOW else "UNSUPPORTED"
        return {"high": "SUPPORTED", "mid": "OVERSTATED"}[band]
    if stance == "somewhat_novel":
        return "UNDERSTATED" if band == "low" else "SUPPORTED"
    if stance == "novel":
        return {"high": "UNSUPPORTED", "mid": "OVERSTATED", "low": "SUPPORTED"}[band]
    return "AMBIGUOUS"


def _finalize_one(raw: dict[str, Any], claim_id: str, cand_id: str, claim: str, compat: bool) -> VerdictOut:
    norm = normalize_verdict(raw, claim_id, cand_id, claim, compat=compat)
    assert norm is not None  # a dict always normalises
    return VerdictOut(**norm)


class VerdictStep(JudgeStep[VerdictInput, VerdictOut]):
    """One claim against one candidate (the reference design: one call per pair)."""

    name = "novelty.verdict"
    Input = VerdictInput
    Output = VerdictOut

    def messages(self, inp: VerdictInput) -> list[ChatMessage]:
        user = prompts.VERDICT_USER.format(claim_id=inp.claim_id, claim=fence("CLAIM", inp.claim),
                                           paper=fence("PAPER", inp.paper_context),
                                           cand_id=inp.candidate.cand_id,
                                           related=fence("RELATED", inp.candidate.text),
                                           rules=prompts.VERDICT_RULES)
        return [ChatMessage(role="system", content=prompts.VERDICT_SYSTEM), ChatMessage(role="user", content=user)]

    def max_tokens(self, inp: VerdictInput) -> int | None:
        return VERDICT_TOKENS

    def schema_enums(self, inp: VerdictInput) -> dict[str, list[str]]:
        return {"review_sentence_id": [inp.claim_id], "related_paper_id": [inp.candidate.cand_id],
                **verdict_enums(inp.compat)}

    def offline(self, inp: VerdictInput) -> VerdictOut:
        batch = VerdictBatchInput(**inp.model_dump(exclude={"candidate"}), candidates=[inp.candidate])
        got = offline_verdicts(batch)
        if not got:
            raise OfflineUnscored(f"no closeness for {inp.claim_id} x {inp.candidate.cand_id}: nothing to judge on")
        return VerdictOut(**got[0])

    def finalize(self, inp: VerdictInput, out: VerdictOut) -> VerdictOut:
        """Normalise the reply (bounded labels, stance/score/label precedence; N5)."""
        return _finalize_one(out.model_dump(), inp.claim_id, inp.candidate.cand_id, inp.claim, inp.compat)


def related_blocks(candidates: list[CandidateText]) -> str:
    """The candidates as the verdict prompts show them: each fenced under its id."""
    return "\n\n".join(f"Related work {c.cand_id}:\n{fence('RELATED', c.text)}" for c in candidates)


class VerdictBatchStep(JudgeStep[VerdictBatchInput, VerdictBatchOutput]):
    """One claim against several candidates in one call; one verdict per candidate id."""

    name = "novelty.verdict_batch"
    #: 800 tokens a candidate: a ``verdict_batch`` setting above 10 asks for more than 8,000
    reply_cap = MANY_ITEMS_REPLY_TOKENS
    Input = VerdictBatchInput
    Output = VerdictBatchOutput

    def messages(self, inp: VerdictBatchInput) -> list[ChatMessage]:
        blocks = related_blocks(inp.candidates)
        user = prompts.VERDICT_BATCH_USER.format(claim_id=inp.claim_id, claim=fence("CLAIM", inp.claim),
                                                 paper=fence("PAPER", inp.paper_context),
                                                 related_blocks=blocks, rules=prompts.VERDICT_RULES)
        return [ChatMessage(role="system", content=prompts.VERDICT_SYSTEM), ChatMessage(role="user", content=user)]

    def max_tokens(self, inp: VerdictBatchInput) -> int | None:
        # the reference's budget per pair
        return min(MANY_ITEMS_REPLY_TOKENS, VERDICT_TOKENS * max(1, len(inp.candidates)))

    def schema_enums(self, inp: VerdictBatchInput) -> dict[str, list[str]]:
        return {"review_sentence_id": [inp.claim_id],
                "related_paper_id": [c.cand_id for c in inp.candidates], **verdict_enums(inp.compat)}

    def offline(self, inp: VerdictBatchInput) -> VerdictBatchOutput:
        return VerdictBatchOutput(verdicts=[VerdictOut(**v) for v in offline_verdicts(inp)])

    def _by_id(self, inp: VerdictBatchInput, out: VerdictBatchOutput) -> dict[str, VerdictOut]:
        ids = [c.cand_id for c in inp.candidates]
        got: dict[str, VerdictOut] = {}
        for v in out.verdicts:
            rid = str(v.related_paper_id).strip() if v.related_paper_id is not None else ""
            if rid in ids and rid not in got:
                got[rid] = v
        if not got and len(out.verdicts) == len(ids):  # ids dropped but the order kept
            got = dict(zip(ids, out.verdicts, strict=True))
        return got

    def check(self, inp: VerdictBatchInput, out: VerdictBatchOutput) -> str | None:
        """A re-ask reason when some candidate has no verdict."""
        missing = [c.cand_id for c in inp.candidates if c.cand_id not in self._by_id(inp, out)]
        if missing:
            return f"no verdict for related work(s) {', '.join(missing)}; give one verdict per related work"
        return None

    def finalize(self, inp: VerdictBatchInput, out: VerdictBatchOutput) -> VerdictBatchOutput:
        """Split back into per-candidate verdicts (by id, else by position) and normalise each;
        a candidate without a verdict is left out (unscored)."""
        got = self._by_id(inp, out)
        verdicts = [
            _finalize_one(got[c.cand_id].model_dump(), inp.claim_id, c.cand_id, inp.claim, inp.compat)
            for c in inp.candidates
            if c.cand_id in got
        ]
        return VerdictBatchOutput(verdicts=verdicts)

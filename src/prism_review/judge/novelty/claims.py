"""``novelty.claims``: the novelty claims of one review (prism-reference §5.2, review side).

:meth:`ClaimsStep.finalize` keeps only what the review really says: claim texts cut to two
sentences and dropped unless verbatim in the review, prior-work strings and citations kept only
when verbatim, enums normalised (stance → unclear, confidence → low, evidence →
method_similarity by default), ids renumbered ``C1…Cn``. When no claim survives an LLM reply,
the reference cue-regex fallback supplies up to 5 (marked ``source: "fallback"``). The offline
judge uses :func:`~prism_review.judge.novelty.cues.detect_claims`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.fence import fence
from prism_review.judge.markup import offline_view
from prism_review.judge.novelty import cues, prompts

STANCES = ("not_novel", "somewhat_novel", "novel", "unclear")
CONFIDENCES = ("high", "medium", "low")
EVIDENCE = ("method_similarity", "task_similarity", "results_similarity", "theory_overlap", "dataset_overlap")


class ClaimOut(BaseModel):
    """One novelty claim as the extraction step returns it (lenient types; see finalize)."""

    # the values are read leniently (Any); the schema states the types a model is asked for
    claim_id: Any = Field(default="", description="C1, C2, ... in order", json_schema_extra={"type": "string"})
    text: str = Field(description="verbatim from the review, one or two sentences")
    stance: Any = Field(default="unclear", json_schema_extra={"type": "string", "enum": list(STANCES)})
    confidence_lang: Any = Field(default="low", json_schema_extra={"type": "string", "enum": list(CONFIDENCES)})
    mentions_prior_work: Any = Field(default=False, json_schema_extra={"type": "boolean"})
    prior_work_strings: list[Any] = Field(default_factory=list, json_schema_extra={"items": {"type": "string"}})
    evidence_expected: Any = Field(default="method_similarity",
                                   json_schema_extra={"type": "string", "enum": list(EVIDENCE)})


class ClaimsInput(BaseModel):
    """One review text to mine for novelty claims."""

    review_id: str = ""
    #: sanitised, truncated review text
    review: str
    #: cut an LLM's claim texts as the original did (:func:`reference_cut`)
    compat: bool = False


class ClaimsOutput(BaseModel):
    """The claims and citation-like strings of one review."""

    novelty_claims: list[ClaimOut] = Field(default_factory=list)
    all_citations_raw: list[Any] = Field(default_factory=list, json_schema_extra={"items": {"type": "string"}})
    _offline: bool = PrivateAttr(default=False)
    #: per claim after finalize: "extracted" (LLM), "offline" (cue detector) or "fallback"
    _sources: list[str] = PrivateAttr(default_factory=list)

    @property
    def sources(self) -> list[str]:
        """Where each finalised claim came from (aligned with ``novelty_claims``)."""
        return list(self._sources) or ["extracted"] * len(self.novelty_claims)


def _enum(value: Any, allowed: tuple[str, ...], default: str) -> str:
    if isinstance(value, str):
        v = value.strip().lower().replace("-", "_").replace(" ", "_")
        if v in allowed:
            return v
    return default


def first_sentences(text: str, n: int = 2) -> str:
    """The first ``n`` sentences, splitting after ``.``, ``!`` or ``?``."""
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(parts[:n]).strip()


_PIECE = re.compile(r"[^.!?]*[.!?]|[^.!?]+\Z")


def reference_cut(text: str, n: int = 2) -> str:
    """The original's cut of a claim (``_limit_sentences``): a piece ends at *every* ``.``, ``!``
    or ``?`` (so at "e.g." and inside "0.5"), the first ``n`` pieces are stripped and re-joined
    with one space. "e.g. X" becomes "e. g.", which the verbatim test then fails to find."""
    pieces = [m.group().strip() for m in _PIECE.finditer(text.strip())]
    return " ".join([p for p in pieces if p][:n])


def normalize_claims(raw: list[ClaimOut], review: str, *, compat: bool = False) -> list[dict[str, Any]]:
    """Verbatim filters, enum defaults and ``C<i>`` ids (see the module docstring); ``compat``
    cuts claim texts with :func:`reference_cut` instead of at sentence ends."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for c in raw:
        text = reference_cut(c.text or "") if compat else first_sentences(c.text or "")
        if not text or not cues.is_verbatim(text, review) or cues.ws(text) in seen:
            continue
        seen.add(cues.ws(text))
        strings = [s.strip() for s in c.prior_work_strings if isinstance(s, str) and cues.is_verbatim(s, review)]
        mentions = c.mentions_prior_work if isinstance(c.mentions_prior_work, bool) else bool(strings)
        if strings:
            mentions = True
        if not mentions:
            strings = []
        out.append({
            "claim_id": f"C{len(out) + 1}",
            "text": text,
            "stance": _enum(c.stance, STANCES, "unclear"),
            "confidence_lang": _enum(c.confidence_lang, CONFIDENCES, "low"),
            "mentions_prior_work": mentions,
            "prior_work_strings": strings,
            "evidence_expected": _enum(c.evidence_expected, EVIDENCE, "method_similarity"),
            "source": "extracted",
        })
    return out


class ClaimsStep(JudgeStep[ClaimsInput, ClaimsOutput]):
    """Novelty claims of one review: LLM extraction or the offline cue detector."""

    name = "novelty.claims"
    Input = ClaimsInput
    Output = ClaimsOutput

    def messages(self, inp: ClaimsInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompts.CLAIMS_SYSTEM),
            ChatMessage(role="user", content=prompts.CLAIMS_USER.format(review=fence("REVIEW", inp.review))),
        ]

    def max_tokens(self, inp: ClaimsInput) -> int | None:
        # the configured cap (8,000 by default), as the reference's Task 1 call: a review has
        # no limit on its number of claims, so a smaller budget would cut some off
        return None

    def offline(self, inp: ClaimsInput) -> ClaimsOutput:
        review = offline_view(inp.review)
        out = ClaimsOutput(
            novelty_claims=[ClaimOut(**{k: v for k, v in c.items() if k in ClaimOut.model_fields})
                            for c in cues.detect_claims(review)],
            all_citations_raw=cues.citations_in(review),
        )
        out._offline = True
        return out

    def finalize(self, inp: ClaimsInput, out: ClaimsOutput) -> ClaimsOutput:
        """Verbatim filters and ids; the reference cue fallback when an LLM reply leaves none."""
        # the compat cut applies to an LLM's claims (the offline detector has no original to match)
        claims = normalize_claims(out.novelty_claims, inp.review, compat=inp.compat and not out._offline)
        if not claims and not out._offline:
            claims = [{**c, "claim_id": f"C{i}", "source": "fallback"}
                      for i, c in enumerate(cues.reference_claims(inp.review), start=1)]
        elif out._offline:
            for c in claims:
                c["source"] = "offline"
        cites = [s for s in out.all_citations_raw if isinstance(s, str)] + cues.citations_in(inp.review)
        kept: list[str] = []
        for s in cites:
            s = s.strip()
            if s and s not in kept and cues.is_verbatim(s, inp.review):
                kept.append(s)
        res = ClaimsOutput(novelty_claims=[ClaimOut(**{k: c[k] for k in ClaimOut.model_fields}) for c in claims],
                           all_citations_raw=kept)
        res._offline = out._offline
        res._sources = [c["source"] for c in claims]
        return res

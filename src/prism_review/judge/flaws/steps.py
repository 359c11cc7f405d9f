"""The three flaw judge steps: ``flaws.consolidate``, ``flaws.validate`` and ``flaws.map``
(and ``flaws.map_batch``, the mapping of several reviews of a paper in one call: the human
panel's under ``--protocol economical``, every review's under ``pooled``; ``flaws.extend``, one
review added to the panel's flaws, is in :mod:`.extend`).

Each step has an LLM prompt (:mod:`.prompts`) and an offline implementation (:mod:`.offline`)
behind the same typed interface, and a ``finalize`` that normalises either route's answer.
``flaws.consolidate`` checks reviewer ids exactly (risk F7: an unknown id → one re-ask stating
it). Output budgets are never below the reference's where a cut would drop content: Step 1 and
the mapping ask for the reference's 35,000 tokens and Step 2 for at least its 4,096 (the LLM
layer still applies a smaller ``max_tokens`` a user configures; risk F2).
"""

from __future__ import annotations

from typing import ClassVar

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.flaws import offline, prompts
from prism_review.judge.flaws.models import (
    ConsolidateInput,
    ConsolidateOutput,
    FlawEvaluation,
    Issue,
    MapBatchInput,
    MapBatchOutput,
    MapInput,
    MapOutput,
    Mention,
    MicroFlaw,
    ValidateInput,
    ValidateOutput,
)
from prism_review.judge.flaws.taxonomy import canonical_label
from prism_review.judge.flaws.validity import ValidityParams
from prism_review.judge.markup import offline_view
from prism_review.metrics.cfi import normalize_reviewer_key

#: output tokens of Step 1 and of the mapping (the reference's step-1 client cap, §6.2, §6.6):
#: a review pool can hold many flaws, and a cut reply would drop the last ones
STEP1_TOKENS = 35_000
#: minimum output tokens of Step 2 (the reference's, §6.3)
STEP2_MIN_TOKENS = 4_096


class ConsolidateStep(JudgeStep[ConsolidateInput, ConsolidateOutput]):
    """Step 1: pool the reviews' criticisms into distinct micro-flaws under the taxonomy."""

    name: ClassVar[str] = "flaws.consolidate"
    reply_cap: ClassVar[int | None] = STEP1_TOKENS
    Input = ConsolidateInput
    Output = ConsolidateOutput
    temperature: ClassVar[float] = 0.1

    def __init__(self, params: offline.ClusterParams | None = None) -> None:
        self.params = params or offline.ClusterParams()

    def messages(self, inp: ConsolidateInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompts.consolidate_system(inp)),
            ChatMessage(role="user", content=prompts.consolidate_user(inp)),
        ]

    def offline(self, inp: ConsolidateInput) -> ConsolidateOutput:
        masked = [r.model_copy(update={"text": offline_view(r.text)}) for r in inp.reviews]
        return offline.consolidate(inp.model_copy(update={"reviews": masked}), self.params)

    def finalize(self, inp: ConsolidateInput, out: ConsolidateOutput) -> ConsolidateOutput:
        """Canonical taxonomy labels, normalised reviewer keys, unique ``Fnn`` ids."""
        flaws: list[MicroFlaw] = []
        seen: set[str] = set()
        for i, f in enumerate(out.micro_flaws, start=1):
            fid = f.flaw_id.strip() or f"F{i:02d}"
            if fid in seen:
                fid = f"F{i:02d}x"
            seen.add(fid)
            args: dict[str, str] = {}
            for key, quote in f.raw_arguments.items():
                args.setdefault(normalize_reviewer_key(key), quote)
            flaws.append(
                MicroFlaw(
                    flaw_id=fid,
                    macro_topic=canonical_label(f.macro_topic),
                    core_summary=f.core_summary.strip(),
                    raw_arguments=args,
                )
            )
        return ConsolidateOutput(micro_flaws=flaws)

    def check(self, inp: ConsolidateInput, out: ConsolidateOutput) -> str | None:
        """Unknown reviewer ids in ``raw_arguments`` (exact match after normalisation)."""
        known = set(inp.reviewer_ids)
        unknown = sorted(
            {
                key
                for f in out.micro_flaws
                for key in f.raw_arguments
                if normalize_reviewer_key(key) not in known
            }
        )
        if not unknown:
            return None
        return (
            "raw_arguments uses reviewer ids that are not in the input: "
            + ", ".join(unknown)
            + ". Use only these ids, exactly as written: "
            + ", ".join(inp.reviewer_ids)
            + "."
        )

    def schema_enums(self, inp: ConsolidateInput) -> dict[str, list[str]]:
        """Only the pool's reviewer ids can be written (a decoding server cannot invent one)."""
        return {"reviewer_id": inp.reviewer_ids}

    def max_tokens(self, inp: ConsolidateInput) -> int | None:
        return STEP1_TOKENS


class ValidateStep(JudgeStep[ValidateInput, ValidateOutput]):
    """Step 2: judge each flaw against the paper text for validity and severity."""

    name: ClassVar[str] = "flaws.validate"
    #: 40 tokens a flaw: a pool of more than 193 flaws asks for more than the global 8,000
    reply_cap: ClassVar[int | None] = STEP1_TOKENS
    Input = ValidateInput
    Output = ValidateOutput
    temperature: ClassVar[float] = 0.0

    def __init__(self, params: ValidityParams | None = None) -> None:
        self.params = params or ValidityParams()

    def messages(self, inp: ValidateInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompts.VALIDATE_SYSTEM),
            ChatMessage(role="user", content=prompts.validate_user(inp)),
        ]

    def offline(self, inp: ValidateInput) -> ValidateOutput:
        return offline.validate(inp, self.params)

    def finalize(self, inp: ValidateInput, out: ValidateOutput) -> ValidateOutput:
        """Keep evaluations of known flaw ids only; an invalid flaw has severity None."""
        ids = {f.flaw_id for f in inp.micro_flaws}
        evals = {}
        for fid, ev in out.evaluations.items():
            key = fid.strip()
            if key not in ids:
                continue
            sev = ev.severity if ev.is_valid else "None"
            evals[key] = FlawEvaluation(is_valid=ev.is_valid, severity=sev)
        return ValidateOutput(evaluations=evals)

    def check(self, inp: ValidateInput, out: ValidateOutput) -> str | None:
        # judged on what finalize keeps: stripped ids of the input's flaws
        kept = self.finalize(inp, out).evaluations
        missing = [f.flaw_id for f in inp.micro_flaws if f.flaw_id not in kept]
        if missing:
            return "No evaluation was given for: " + ", ".join(missing) + ". Evaluate every flaw."
        # a valid flaw needs a severity: without one it would silently leave the ground truth
        unrated = [fid for fid, ev in out.evaluations.items()
                   if fid.strip() in kept and ev.is_valid and ev.severity == "None"]
        if unrated:
            return (
                "These flaws are marked valid but have no severity: " + ", ".join(unrated)
                + ". Give each valid flaw severity Critical or Minor (None only for invalid flaws)."
            )
        return None

    def schema_enums(self, inp: ValidateInput) -> dict[str, list[str]]:
        return {"flaw_id": [f.flaw_id for f in inp.micro_flaws]}

    def max_tokens(self, inp: ValidateInput) -> int | None:
        return min(STEP1_TOKENS, max(STEP2_MIN_TOKENS, 40 * len(inp.micro_flaws) + 256))


def unknown_issue_ids(issues: list[Issue], mentions: list[Mention]) -> str | None:
    """The re-ask text when a mapping names an issue id that is not in the bank."""
    ids = {i.issue_id for i in issues}
    unknown = sorted({m.issue_id for m in mentions if m.issue_id.strip() not in ids})
    if unknown:
        return "Unknown issue ids: " + ", ".join(unknown) + ". Use only ids from the bank."
    return None


class MapStep(JudgeStep[MapInput, MapOutput]):
    """Step 3: map one review onto the valid-issue bank, in the review's own order."""

    name: ClassVar[str] = "flaws.map"
    reply_cap: ClassVar[int | None] = STEP1_TOKENS
    Input = MapInput
    Output = MapOutput
    temperature: ClassVar[float] = 0.0

    def messages(self, inp: MapInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompts.MAP_SYSTEM),
            ChatMessage(role="user", content=prompts.map_user(inp)),
        ]

    def offline(self, inp: MapInput) -> MapOutput:
        return offline.map_review(inp.model_copy(update={"review_text": offline_view(inp.review_text)}))

    def check(self, inp: MapInput, out: MapOutput) -> str | None:
        return unknown_issue_ids(inp.issues, out.mentions)

    def schema_enums(self, inp: MapInput) -> dict[str, list[str]]:
        return {"issue_id": [i.issue_id for i in inp.issues]}

    def max_tokens(self, inp: MapInput) -> int | None:
        return STEP1_TOKENS


class MapBatchStep(JudgeStep[MapBatchInput, MapBatchOutput]):
    """Step 3 for all the reviews of a paper in one call: the bank sent once, each review mapped
    on its own under :class:`MapStep`'s rules (economical protocol, ``dimensions/flaws_pieces``)."""

    name: ClassVar[str] = "flaws.map_batch"
    reply_cap: ClassVar[int | None] = STEP1_TOKENS
    Input = MapBatchInput
    Output = MapBatchOutput
    temperature: ClassVar[float] = 0.0

    def messages(self, inp: MapBatchInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompts.MAP_BATCH_SYSTEM),
            ChatMessage(role="user", content=prompts.map_batch_user(inp)),
        ]

    def offline(self, inp: MapBatchInput) -> MapBatchOutput:
        return MapBatchOutput.model_validate({"reviews": [
            {"reviewer_id": r.reviewer_id, "mentions": MapStep().offline(inp.single(i)).mentions}
            for i, r in enumerate(inp.reviews)]})  # one review's rules, markup and addressed-text masking included

    def check(self, inp: MapBatchInput, out: MapBatchOutput) -> str | None:
        """Every review answered once under its own id, and only bank ids used."""
        problems = []
        got = [r.reviewer_id for r in out.reviews]
        missing = [i for i in inp.reviewer_ids if i not in got]
        extra = sorted({i for i in got if i not in inp.reviewer_ids})
        if missing:
            problems.append("No entry was given for: " + ", ".join(missing) + ". Map every review.")
        if extra:
            problems.append("Unknown reviewer ids: " + ", ".join(extra) + ". Use only "
                            + ", ".join(inp.reviewer_ids) + ".")
        unknown = unknown_issue_ids(inp.issues, [m for r in out.reviews for m in r.mentions])
        if unknown:
            problems.append(unknown)
        return " ".join(problems) or None

    def schema_enums(self, inp: MapBatchInput) -> dict[str, list[str]]:
        return {"issue_id": [i.issue_id for i in inp.issues], "reviewer_id": inp.reviewer_ids}

    def max_tokens(self, inp: MapBatchInput) -> int | None:
        # the one-review cap, not n times it (a model's output limit); a cut reply fails to
        # parse and flaws_pieces then maps each review in its own call
        return STEP1_TOKENS

"""``constructiveness.arc_batch``: the ARC step for several reviews of one paper in one call.

The economical protocol's constructiveness step (``dimensions/protocol.py``). The rubric (the ARC
step's system message, unchanged) is sent once for all the reviews of a paper instead of once
per review; each review is fenced on its own with its id, decomposed and scored on its own, and
the reply is split back per review into exactly what ``constructiveness.arc`` returns for it
(the same ARC validation, renumbering and missing-score rule), so the metrics are the same code.
A review missing from the reply, or with an ARC lacking a numeric score, is re-asked once (the
whole call) and otherwise left unscored (its entry absent).

The reply budget (:func:`reply_budget`) is the reference's own estimate of a reply, summed over
the reply's reviews, with the reference's per-call safety floor once per call: the reference
sizes one review's reply as ``max(table floor, ratio estimate)`` (§7.2), and its code calls the
ratio estimate (``max(5, L/350)`` ARCs × 130 tokens × 1.5) the primary estimate and the length
table the safety floor. A shared reply is the reviews' ARC lists one after the other, so its
size is the sum of theirs; the floor guards one call, not each review in it. The estimate packs
the groups (at most ``MAX_REPLY_TOKENS``); every call asks for the cap itself. A reply cut at the
cap is not asked again (the judge re-asks a cut reply only within the step's cap) and fails as a
whole (a cut reply is never completed), and then each paper of the group gets its own call (``dimensions/constructiveness.py``). ``docs/fidelity.md``, "Group reply
budget of constructiveness calls".
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from prism_review.judge.base import MANY_ITEMS_REPLY_TOKENS, ChatMessage, JudgeStep
from prism_review.judge.constructiveness import prompt
from prism_review.judge.constructiveness.arc import ARC, ARCInput, ARCOutput, ARCStep
from prism_review.judge.fence import fence
from prism_review.metrics.constructiveness import DIMENSIONS, adaptive_max_tokens, arc_ratio_tokens

_ONE = ARCStep()
#: the reply cap of one call, within common models' output limits (the step's ``reply_cap``)
MAX_REPLY_TOKENS = MANY_ITEMS_REPLY_TOKENS


def reply_budget(review_lengths: list[int]) -> int:
    """Output tokens for one reply holding reviews of these lengths (characters), uncapped.

    Each review's ratio estimate (``arc_ratio_tokens``: its ARCs at 130 tokens with the 1.5
    margin, never more than its own per-call budget), plus the call's floor once: the largest
    amount by which a review's per-call budget (``adaptive_max_tokens``) exceeds its estimate.
    One review: exactly the reference's per-call budget. The result does not depend on the
    order of the reviews."""
    if not review_lengths:
        return 0
    pairs = [(adaptive_max_tokens(n), min(arc_ratio_tokens(n), adaptive_max_tokens(n))) for n in review_lengths]
    return sum(est for _, est in pairs) + max(per_call - est for per_call, est in pairs)


class BatchReview(BaseModel):
    """One review of the batch: an id unique within the batch and its text."""

    review_id: str
    review_text: str


class ARCBatchInput(BaseModel):
    """Several reviews of one paper (non-empty texts)."""

    reviews: list[BatchReview]


class ReviewARCs(BaseModel):
    review_id: Any = Field(default="", json_schema_extra={"type": "string"})
    atomic_comments: list[ARC] = Field(default_factory=list)

    @field_validator("atomic_comments", mode="before")
    @classmethod
    def _dicts_only(cls, v: Any) -> Any:
        return [a for a in v if isinstance(a, dict)] if isinstance(v, list) else []


class ARCBatchOutput(BaseModel):
    """One entry per review id."""

    reviews: list[ReviewARCs] = Field(default_factory=list)

    def by_id(self) -> dict[str, ARCOutput]:
        """Review id → its ARCs (the first entry given for the id)."""
        got: dict[str, ARCOutput] = {}
        for r in self.reviews:
            rid = str(r.review_id or "").strip()
            if rid and rid not in got:
                got[rid] = ARCOutput.model_validate({"atomic_comments": [a.model_dump() for a in r.atomic_comments]})
        return got


BATCH_INSTRUCTION = (
    "Analyse each review below on its own, exactly as you would analyse it alone: decompose it "
    "into its atomic review comments and score each on the rubric. Return one entry in "
    "\"reviews\" per review, with its review_id and its atomic_comments; never mix comments of "
    "different reviews."
)


class ARCBatchStep(JudgeStep[ARCBatchInput, ARCBatchOutput]):
    """The reviews of one paper → each review's ARCs, one call, the rubric sent once."""

    name: ClassVar[str] = "constructiveness.arc_batch"
    reply_cap: ClassVar[int | None] = MAX_REPLY_TOKENS
    Input = ARCBatchInput
    Output = ARCBatchOutput
    temperature: ClassVar[float] = 0.0

    def messages(self, inp: ARCBatchInput) -> list[ChatMessage]:
        blocks = "\n\n".join(f"Review {r.review_id}:\n{fence('REVIEW', r.review_text)}" for r in inp.reviews)
        return [ChatMessage(role="system", content=prompt.SYSTEM),
                ChatMessage(role="user", content=f"{BATCH_INSTRUCTION}\n\n{blocks}")]

    def max_tokens(self, inp: ARCBatchInput) -> int:
        """The reply cap, not the reply's estimate: a budget is a ceiling (output is billed as
        produced), the estimate decides how many reviews share a call (``reply_budget``), and a
        reply longer than its estimate but within the cap is not cut (a cut reply is paid for and
        thrown away)."""
        return MAX_REPLY_TOKENS

    def offline(self, inp: ARCBatchInput) -> ARCBatchOutput:
        return ARCBatchOutput(reviews=[
            ReviewARCs.model_validate({"review_id": r.review_id, "atomic_comments": [
                a.model_dump() for a in _ONE.offline(ARCInput(review_text=r.review_text)).atomic_comments]})
            for r in inp.reviews])

    def schema_enums(self, inp: ARCBatchInput) -> dict[str, list[Any]]:
        return {"review_id": [r.review_id for r in inp.reviews], **{d: [0, 1, 2] for d in DIMENSIONS}}

    def check(self, inp: ARCBatchInput, out: ARCBatchOutput) -> str | None:
        got = out.by_id()
        problems = []
        for r in inp.reviews:
            if r.review_id not in got:
                problems.append(f"no entry for review {r.review_id}")
            elif (why := _ONE.check(ARCInput(review_text=r.review_text), got[r.review_id])) is not None:
                problems.append(f"review {r.review_id}: {why}")
        return "; ".join(problems[:10]) if problems else None

    def usable(self, inp: ARCBatchInput, reply: dict[str, Any] | None) -> ARCBatchOutput:
        """From a reply whose check still failed after the re-ask (its JSON object, as the LLM
        layer parsed it; ``None`` when it was unreadable): the reviews that pass their own
        check, finalised (each review stands alone, as with one call per review)."""
        try:
            out = ARCBatchOutput.model_validate(reply)
        except Exception:  # noqa: BLE001 - an unreadable reply leaves every review unscored
            return ARCBatchOutput()
        got = out.by_id()
        keep = [r for r in inp.reviews
                if r.review_id in got and _ONE.check(ARCInput(review_text=r.review_text), got[r.review_id]) is None]
        return self.finalize(ARCBatchInput(reviews=keep), out)

    def finalize(self, inp: ARCBatchInput, out: ARCBatchOutput) -> ARCBatchOutput:
        """Each review's ARCs finalised as the single-review step does; unknown ids dropped."""
        got = out.by_id()
        return ARCBatchOutput(reviews=[
            ReviewARCs.model_validate({"review_id": r.review_id, "atomic_comments": [
                a.model_dump() for a in _ONE.finalize(ARCInput(review_text=r.review_text), got[r.review_id]).atomic_comments]})
            for r in inp.reviews if r.review_id in got])

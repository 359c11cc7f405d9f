"""``constructiveness.arc``: decompose a review into atomic review comments scored on D1–D5.

One step, two routes (see :mod:`prism_review.judge.base`):

* LLM: :mod:`.prompt` (the rubric sits in the system message, so the LLM layer's re-ask, which
  repeats the full original messages, keeps it — risk K2); the output-token budget is computed
  per call from the review length (:func:`~prism_review.metrics.constructiveness.adaptive_max_tokens`,
  risk K1);
* offline: :mod:`.offline`.

``comments`` in the input switches to *score-only* mode: each given comment becomes exactly one
ARC (used by ``prism agreement --dataset revutil``, where every review point is one comment).
Scores are normalised as the reference does (non-numbers → 0, round-half-even, clamp to 0–2),
invalid comment types become ``observation`` and ARCs are renumbered ARC_01, ARC_02, ….
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.constructiveness import prompt
from prism_review.judge.constructiveness.offline import offline_arcs
from prism_review.judge.markup import offline_view
from prism_review.metrics.constructiveness import DIMENSIONS, adaptive_max_tokens, validate_arc


class ARCInput(BaseModel):
    """A review to decompose (or, in score-only mode, its given comments)."""

    review_text: str
    reviewer_id: str = ""
    paper_text: str | None = None
    #: score-only mode: one ARC per given comment, no re-segmentation
    comments: list[str] | None = None
    #: section name given to score-only comments
    comment_section: str = "Unknown"
    #: reproduce the reference: missing rubric scores are 0 and earn no re-ask
    compat: bool = False


class ARC(BaseModel):
    """One atomic review comment with its rubric scores (0/1/2)."""

    model_config = ConfigDict(extra="ignore")

    arc_id: str = "ARC_00"
    section: str = "Unknown"
    comment_type: str = "observation"
    content: str = ""
    anchor_quote: str = ""
    D1_actionability: int = 0
    D2_specificity: int = 0
    D3_justification: int = 0
    D4_solution: int = 0
    D5_tone: int = 0
    #: rubric scores the judge did not give as numbers (absent, text, null). The reference
    #: turns them into 0; prism-review re-asks once and otherwise leaves the review unscored
    #: (``--compat`` keeps the reference's 0). Not part of the reply schema.
    scores_missing: SkipJsonSchema[list[str]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = validate_arc(data)
        if "scores_missing" not in data:
            out["scores_missing"] = [d for d in DIMENSIONS if not _is_number(data.get(d))]
        return out


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class ARCOutput(BaseModel):
    """The review's ARCs."""

    atomic_comments: list[ARC] = Field(default_factory=list)

    @field_validator("atomic_comments", mode="before")
    @classmethod
    def _dicts_only(cls, v: Any) -> Any:
        # the reference drops non-dict items (and a non-list yields no ARCs)
        return [a for a in v if isinstance(a, dict)] if isinstance(v, list) else []


_WS = re.compile(r"\s+")


@lru_cache(maxsize=64)
def _ws_folded(text: str) -> str:
    # a review is checked once per comment (~20 per review): fold its whitespace once
    return _WS.sub(" ", text)


def anchor_is_verbatim(anchor: str, review: str) -> bool:
    """True when ``anchor`` occurs in ``review`` (whitespace-insensitive, case-sensitive)."""
    a = _WS.sub(" ", anchor).strip()
    return bool(a) and a in _ws_folded(review)


class ARCStep(JudgeStep[ARCInput, ARCOutput]):
    """The constructiveness step (1 LLM call per review)."""

    name: ClassVar[str] = "constructiveness.arc"
    Input = ARCInput
    Output = ARCOutput
    temperature: ClassVar[float] = 0.0

    def __init__(self, *, model_path: str | None = None) -> None:
        self.model_path = model_path

    def messages(self, inp: ARCInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompt.SYSTEM),
            ChatMessage(
                role="user",
                content=prompt.user_message(
                    inp.review_text, paper=inp.paper_text, comments=inp.comments
                ),
            ),
        ]

    def max_tokens(self, inp: ARCInput) -> int:
        include_paper = bool(inp.paper_text and len(inp.paper_text) > 100)
        return adaptive_max_tokens(len(inp.review_text), include_paper=include_paper)

    def offline(self, inp: ARCInput) -> ARCOutput:
        if not inp.review_text.strip() and not inp.comments:
            return ARCOutput()
        comments = None if inp.comments is None else [offline_view(c) for c in inp.comments]
        arcs = offline_arcs(
            offline_view(inp.review_text), comments, section=inp.comment_section,
            model_path=self.model_path,
        )
        return ARCOutput.model_validate({"atomic_comments": arcs})

    def schema_enums(self, inp: ARCInput) -> dict[str, list[Any]]:
        """Rubric scores are 0, 1 or 2 (``--compat`` leaves the reference's free integers)."""
        return {} if inp.compat else {d: [0, 1, 2] for d in DIMENSIONS}

    def check(self, inp: ARCInput, out: ARCOutput) -> str | None:
        if inp.comments is not None and len(out.atomic_comments) != len(inp.comments):
            return (
                f"return exactly {len(inp.comments)} ARCs, one per numbered comment "
                f"(got {len(out.atomic_comments)})"
            )
        if inp.review_text.strip() and not out.atomic_comments:
            return "the review is not empty, so it must yield at least one ARC"
        missing = [] if inp.compat else [
            f"{a.arc_id or f'ARC {i}'}: {', '.join(a.scores_missing)}"
            for i, a in enumerate(out.atomic_comments, start=1)
            if a.scores_missing
        ]
        if missing:
            return "give every rubric score as an integer 0, 1 or 2; missing for " + "; ".join(missing[:10])
        return None

    def finalize(self, inp: ARCInput, out: ARCOutput) -> ARCOutput:
        arcs = [a.model_dump() for a in out.atomic_comments]
        for i, a in enumerate(arcs, start=1):
            a["arc_id"] = f"ARC_{i:02d}"
        return ARCOutput.model_validate({"atomic_comments": arcs})

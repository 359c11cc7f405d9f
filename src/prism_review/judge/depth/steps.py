"""The three Depth-of-Analysis judge steps: segment → classify → ground (prism-reference §4.2).

Every unit carries its index in the review's unit list, and every reply item is attached to a
unit by that index, falling back to a whitespace- and case-folded text match (risk D6).
``compat=True`` in an input reproduces the original's handling: the classified list replaces
the unit list, labels are kept verbatim, and grounding attaches by exact string equality.
The ``fallback`` methods give the original's answers for an unusable reply (sentence split,
all Claim/Other, all grounding 0); only compat runs use them — by default such a step is
unscored.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.depth import offline as offline_judge
from prism_review.judge.depth import prompts
from prism_review.judge.depth.models import (
    ClassifiedItem,
    ClassifyInput,
    ClassifyOutput,
    GroundInput,
    GroundItem,
    GroundOutput,
    SegmentInput,
    SegmentItem,
    SegmentOutput,
    Unit,
)
from prism_review.judge.markup import offline_view
from prism_review.metrics.depth import ASPECTS, CLAIM, PREMISE, normalise_role
from prism_review.text import fold_ws

# ---- segment ---------------------------------------------------------------------------


def norm_text(text: str) -> str:
    """Text folded for fallback matching: case, whitespace and surrounding punctuation."""
    return fold_ws(text).lower().strip(" \"'“”‘’.,;:!?-*•")


def fallback_sentence_split(text: str) -> list[str]:
    """The original's fallback: split on whitespace that follows ``.``, ``!`` or ``?``."""
    return [p.strip() for p in re.split(r"(?<=[.!?])\s+", text) if p.strip()]


class SegmentStep(JudgeStep[SegmentInput, SegmentOutput]):
    """Review → argumentative units (verbatim, in order)."""

    name: ClassVar[str] = "depth.segment"
    Input = SegmentInput
    Output = SegmentOutput

    def messages(self, inp: SegmentInput) -> list[ChatMessage]:
        if inp.sentences is not None:
            return [
                ChatMessage(role="system", content=prompts.SELECT_SYSTEM),
                ChatMessage(
                    role="user", content=prompts.select_user(inp.review_text, inp.sentences)
                ),
            ]
        return [
            ChatMessage(role="system", content=prompts.SEGMENT_SYSTEM),
            ChatMessage(role="user", content=prompts.segment_user(inp.review_text)),
        ]

    def offline(self, inp: SegmentInput) -> SegmentOutput:
        return offline_judge.segment(offline_view(inp.review_text), inp.sentences)

    def prefetch(self, inp: SegmentInput) -> int:
        """Start the encoder runs :meth:`offline` will need for ``inp`` (free segmentation
        only); returns how many were queued."""
        if inp.sentences is not None:
            return 0
        return offline_judge.prefetch_segment(offline_view(inp.review_text))

    def finalize(self, inp: SegmentInput, out: SegmentOutput) -> SegmentOutput:
        if inp.compat:
            return out
        if inp.sentences is None:
            kept = [a.argument.strip() for a in out.arguments if a.argument.strip()]
            return SegmentOutput(
                arguments=[SegmentItem(index=i, argument=t) for i, t in enumerate(kept)]
            )
        sents = inp.sentences
        by_text = {norm_text(s): i for i, s in reversed(list(enumerate(sents)))}
        chosen: set[int] = set()
        for a in out.arguments:
            if a.index is not None and 0 <= a.index < len(sents):
                chosen.add(a.index)
            elif (j := by_text.get(norm_text(a.argument))) is not None:
                chosen.add(j)
        return SegmentOutput(
            arguments=[SegmentItem(index=i, argument=sents[i]) for i in sorted(chosen)]
        )

    def check(self, inp: SegmentInput, out: SegmentOutput) -> str | None:
        """A non-empty review split into no unit at all is a failed segmentation (spec §14.4):
        re-asked once; the dimension leaves the review unscored if it stays empty."""
        if inp.compat or not inp.review_text.strip() or self.finalize(inp, out).arguments:
            return None
        return (
            "The reply lists no argumentative unit, but the review is not empty. Every claim, "
            "premise, observation and recommendation is a unit, including sentences that restate "
            "what the paper does; list them all."
        )

    def schema_enums(self, inp: SegmentInput) -> dict[str, list[Any]]:
        """Selecting sentences: only their indices can be written."""
        if inp.compat or inp.sentences is None:
            return {}
        return {"index": list(range(len(inp.sentences)))}

    def fallback(self, inp: SegmentInput) -> SegmentOutput:
        """Compat answer to an unusable reply: every regex sentence is a unit."""
        pieces = (
            inp.sentences if inp.sentences is not None else fallback_sentence_split(inp.review_text)
        )
        return SegmentOutput(
            arguments=[SegmentItem(index=i, argument=t) for i, t in enumerate(pieces)]
        )


# ---- classify --------------------------------------------------------------------------


_ASPECT_WORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "Soundness",
        ("sound", "correct", "method", "experiment", "math", "rigor", "valid", "technical"),
    ),
    ("Clarity", ("clar", "writing", "present", "organi", "readab", "figure", "notation")),
    ("Contribution", ("contrib", "novel", "origin", "signific", "impact", "motivat", "compar")),
]


def normalise_aspect(aspect: Any) -> str:
    """One of Soundness/Clarity/Contribution/Other, case-insensitively, with common synonyms."""
    if not isinstance(aspect, str):
        return "Other"
    low = aspect.strip().lower()
    for a in ASPECTS:
        if low == a.lower():
            return a
    for a, words in _ASPECT_WORDS:
        if any(w in low for w in words):
            return a
    return "Other"


def _attach(items: list[Any], units: list[Unit], text_of: Any) -> dict[int, Any]:
    """Map unit index → reply item: by index first, then by folded text, then by position."""
    want = {u.index for u in units}
    by_text: dict[str, int] = {}
    for u in units:
        by_text.setdefault(norm_text(u.text), u.index)
    got: dict[int, Any] = {}
    loose: list[Any] = []
    for it in items:
        if it.index is not None and it.index in want and it.index not in got:
            got[it.index] = it
        else:
            loose.append(it)
    for it in loose:
        j = by_text.get(norm_text(text_of(it)))
        if j is not None and j not in got:
            got[j] = it
    if not got and len(items) == len(units) and all(it.index is None for it in items):
        got = {u.index: it for u, it in zip(units, items, strict=True)}
    return got


class ClassifyStep(JudgeStep[ClassifyInput, ClassifyOutput]):
    """Units → role (Claim/Premise) and aspect, one result per unit index."""

    name: ClassVar[str] = "depth.classify"
    Input = ClassifyInput
    Output = ClassifyOutput

    def messages(self, inp: ClassifyInput) -> list[ChatMessage]:
        units = [(u.index, u.text) for u in inp.units]
        return [
            ChatMessage(role="system", content=prompts.CLASSIFY_SYSTEM),
            ChatMessage(role="user", content=prompts.classify_user(inp.review_text, units)),
        ]

    def offline(self, inp: ClassifyInput) -> ClassifyOutput:
        return offline_judge.classify(inp.units)

    def finalize(self, inp: ClassifyInput, out: ClassifyOutput) -> ClassifyOutput:
        if inp.compat:  # the classified list replaces the unit list, labels verbatim
            return out
        got = _attach(out.classified_arguments, inp.units, lambda it: it.argument)
        items = []
        for u in inp.units:
            it = got.get(u.index)
            items.append(
                ClassifiedItem(
                    index=u.index,
                    argument=u.text,
                    role=normalise_role(it.role) if it else "Claim",
                    aspect=normalise_aspect(it.aspect) if it else "Other",
                    matched=it is not None,
                )
            )
        return ClassifyOutput(classified_arguments=items)

    def check(self, inp: ClassifyInput, out: ClassifyOutput) -> str | None:
        if inp.compat:
            return None
        got = _attach(out.classified_arguments, inp.units, lambda it: it.argument)
        missing = [u.index for u in inp.units if u.index not in got]
        if missing:
            return f"The reply has no entry for unit indices {missing}; label every unit."
        return None

    def schema_enums(self, inp: ClassifyInput) -> dict[str, list[Any]]:
        """The units' indices and the labels the prompt defines (``--compat`` reads the labels
        verbatim, as the original did, so they stay free there)."""
        if inp.compat:
            return {}
        return {"index": [u.index for u in inp.units], "role": [PREMISE, CLAIM],
                "aspect": list(ASPECTS)}

    def fallback(self, inp: ClassifyInput) -> ClassifyOutput:
        """Compat answer to an unusable reply: every unit is a Claim about Other."""
        return ClassifyOutput(
            classified_arguments=[
                ClassifiedItem(index=u.index, argument=u.text, role="Claim", aspect="Other")
                for u in inp.units
            ]
        )


# ---- ground ----------------------------------------------------------------------------


def clamp_score(value: Any) -> float | int | None:
    """A grounding score clamped to [0, 2]; None when it is not a number."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, int | float) or value != value:  # NaN
        return None
    v = min(2.0, max(0.0, float(value)))
    return int(v) if v.is_integer() else v


class GroundStep(JudgeStep[GroundInput, GroundOutput]):
    """Premises → grounding score 0 (vague) / 1 (partly specific) / 2 (highly specific)."""

    name: ClassVar[str] = "depth.ground"
    Input = GroundInput
    Output = GroundOutput

    def messages(self, inp: GroundInput) -> list[ChatMessage]:
        prem = [(u.index, u.text) for u in inp.premises]
        return [
            ChatMessage(role="system", content=prompts.GROUND_SYSTEM),
            ChatMessage(role="user", content=prompts.ground_user(inp.review_text, prem)),
        ]

    def offline(self, inp: GroundInput) -> GroundOutput:
        return offline_judge.ground(inp.premises)

    def finalize(self, inp: GroundInput, out: GroundOutput) -> GroundOutput:
        if inp.compat:  # exact string equality, the last duplicate wins (a dict in the original)
            exact = {g.premise: g.grounding_score for g in out.grounding_results}
            return GroundOutput(
                grounding_results=[
                    GroundItem(index=u.index, premise=u.text, grounding_score=exact.get(u.text))
                    for u in inp.premises
                ]
            )
        got = _attach(out.grounding_results, inp.premises, lambda it: it.premise)
        return GroundOutput(
            grounding_results=[
                GroundItem(
                    index=u.index,
                    premise=u.text,
                    grounding_score=clamp_score(got[u.index].grounding_score)
                    if u.index in got
                    else None,
                )
                for u in inp.premises
            ]
        )

    def check(self, inp: GroundInput, out: GroundOutput) -> str | None:
        if inp.compat:
            return None
        got = _attach(out.grounding_results, inp.premises, lambda it: it.premise)
        bad = [
            u.index
            for u in inp.premises
            if u.index not in got or clamp_score(got[u.index].grounding_score) is None
        ]
        if bad:
            return f"No valid grounding_score (0, 1 or 2) for premise indices {bad}; grade every premise."
        return None

    def schema_enums(self, inp: GroundInput) -> dict[str, list[Any]]:
        if inp.compat:
            return {}
        return {"index": [u.index for u in inp.premises], "grounding_score": [0, 1, 2]}

    def fallback(self, inp: GroundInput) -> GroundOutput:
        """Compat answer to an unusable reply: every premise scores 0."""
        return GroundOutput(
            grounding_results=[
                GroundItem(index=u.index, premise=u.text, grounding_score=0) for u in inp.premises
            ]
        )


SEGMENT = SegmentStep()
CLASSIFY = ClassifyStep()
GROUND = GroundStep()

"""Typed inputs and outputs of the Depth-of-Analysis judge steps (segment, classify, ground,
and the economical protocol's one-call analyse).

The steps (:mod:`prism_review.judge.depth.steps`, :mod:`prism_review.judge.depth.analyse`) and the
offline judge (:mod:`prism_review.judge.depth.offline`) both build these, so they live apart from
either: the offline judge answers a step without importing the step.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema


class Unit(BaseModel):
    """An argumentative unit: its position in the review's unit list and its verbatim text."""

    index: int
    text: str


class SegmentInput(BaseModel):
    """A review to split; with ``sentences`` the step only selects the argumentative ones."""

    review_text: str
    sentences: list[str] | None = None
    compat: bool = False


class SegmentItem(BaseModel):
    index: int | None = None
    argument: str = ""


class SegmentOutput(BaseModel):
    arguments: list[SegmentItem]

    def units(self) -> list[Unit]:
        """The finalised units (index defaults to position)."""
        return [
            Unit(index=a.index if a.index is not None else i, text=a.argument)
            for i, a in enumerate(self.arguments)
        ]


class ClassifyInput(BaseModel):
    """Units of one review to label with a role and an aspect."""

    review_text: str
    units: list[Unit]
    compat: bool = False


class ClassifiedItem(BaseModel):
    index: int | None = None
    argument: str = ""
    role: str | None = None
    aspect: str | None = None
    #: False when the reply had no entry for this unit (it then counts as Claim/Other);
    #: internal, not part of the reply schema
    matched: SkipJsonSchema[bool] = True


class ClassifyOutput(BaseModel):
    classified_arguments: list[ClassifiedItem]


class GroundInput(BaseModel):
    """The premises of one review to grade 0/1/2."""

    review_text: str
    premises: list[Unit]
    compat: bool = False


class GroundItem(BaseModel):
    index: int | None = None
    premise: str = ""
    grounding_score: float | None = None


class GroundOutput(BaseModel):
    grounding_results: list[GroundItem]

    def scores(self) -> dict[int, float | int | None]:
        """Unit index → grounding score (finalised outputs only)."""
        return {g.index: g.grounding_score for g in self.grounding_results if g.index is not None}


class AnalyseInput(BaseModel):
    """One review to analyse."""

    review_text: str


class AnalysedUnit(BaseModel):
    index: int | None = None
    argument: str = ""
    role: str | None = None
    aspect: str | None = None
    grounding_score: Any = Field(default=None, json_schema_extra={"type": "integer", "enum": [0, 1, 2]})


class AnalyseOutput(BaseModel):
    arguments: list[AnalysedUnit]

"""The five PRISM venues: folder names, years, review fields and rating scales.

A rating is read raw (as the venue writes it) and normalised to [0, 1] with the venue's scale,
so ratings from different venues can be compared. Unknown venues raise ``KeyError`` with the
list of known ones.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict


class Scale(BaseModel):
    """A numeric scale ``[low, high]``; ``values`` lists the points actually used, if known."""

    model_config = ConfigDict(frozen=True)

    low: float
    high: float
    values: tuple[float, ...] = ()

    def normalise(self, value: float | None) -> float | None:
        """Map a value on this scale to [0, 1]; out-of-range or missing values give None."""
        if value is None or self.high == self.low:
            return None
        if value < self.low or value > self.high:
            return None
        return (value - self.low) / (self.high - self.low)


class Venue(BaseModel):
    """What prism-review knows about one venue."""

    model_config = ConfigDict(frozen=True)

    id: str  # canonical: ICLR2024
    hf_folder: str  # corpus folder / novelty name: ICLR_2024
    year: int
    rating_field: str  # "Rating" or "Overall Recommendation"
    rating_scale: Scale
    #: text fields of a human review, in the venue's order
    text_fields: tuple[str, ...]
    #: score fields and their scales (read with ``read_score``)
    score_fields: dict[str, Scale]
    #: fields that are neither text to evaluate nor scores (ids, check boxes)
    meta_fields: tuple[str, ...] = ()
    #: True when the corpus holds almost only accepted papers (collection bias)
    accept_biased: bool = False

    @property
    def lower(self) -> str:
        return self.id.lower()

    def read_score(self, field: str, raw: Any) -> tuple[float | None, float | None]:
        """Return ``(raw numeric value, value normalised to [0, 1])`` for a score field."""
        scale = self.score_fields.get(field)
        value = leading_number(raw)
        if scale is None or value is None:
            return value, None
        return value, scale.normalise(value)

    def rating(self, review_fields: dict[str, Any]) -> tuple[float | None, float | None]:
        """The overall rating of a human review dict: raw number and [0, 1] normalised."""
        raw = review_fields.get(self.rating_field)
        value = leading_number(raw)
        return value, (self.rating_scale.normalise(value) if value is not None else None)


_NUM = re.compile(r"^\s*[-+]?\d+(?:\.\d+)?")


def leading_number(raw: Any) -> float | None:
    """The leading number of a score string ("6: marginally above" → 6.0, "3 good" → 3.0)."""
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    m = _NUM.match(str(raw))
    return float(m.group(0)) if m else None


_SUB = Scale(low=1, high=4)  # Soundness / Presentation / Contribution: 1 poor … 4 excellent
_CONF5 = Scale(low=1, high=5)

_ICLR_TEXT = ("Summary", "Strengths", "Weaknesses", "Questions")
_ICLR_SCORES = {
    "Soundness": _SUB,
    "Presentation": _SUB,
    "Contribution": _SUB,
    "Confidence": _CONF5,
}

VENUES: dict[str, Venue] = {
    v.id: v
    for v in [
        Venue(
            id="ICLR2024",
            hf_folder="ICLR_2024",
            year=2024,
            rating_field="Rating",
            rating_scale=Scale(low=1, high=10, values=(1, 3, 5, 6, 8, 10)),
            text_fields=_ICLR_TEXT,
            score_fields={**_ICLR_SCORES, "Rating": Scale(low=1, high=10)},
            meta_fields=("Review ID", "Flag For Ethics Review", "Code Of Conduct"),
        ),
        Venue(
            id="ICLR2025",
            hf_folder="ICLR_2025",
            year=2025,
            rating_field="Rating",
            rating_scale=Scale(low=1, high=10, values=(1, 3, 5, 6, 8, 10)),
            text_fields=(*_ICLR_TEXT, "Limitations"),
            score_fields={**_ICLR_SCORES, "Rating": Scale(low=1, high=10)},
            meta_fields=("Review ID", "Flag For Ethics Review", "Code Of Conduct"),
        ),
        Venue(
            id="ICLR2026",
            hf_folder="ICLR_2026",
            year=2026,
            rating_field="Rating",
            rating_scale=Scale(low=0, high=10, values=(0, 2, 4, 6, 8, 10)),
            text_fields=(*_ICLR_TEXT, "Limitations"),
            score_fields={**_ICLR_SCORES, "Rating": Scale(low=0, high=10)},
            meta_fields=("Review ID", "Flag For Ethics Review", "Code Of Conduct"),
        ),
        Venue(
            id="ICML2025",
            hf_folder="ICML_2025",
            year=2025,
            rating_field="Overall Recommendation",
            rating_scale=Scale(low=1, high=5, values=(1, 2, 3, 4, 5)),
            text_fields=(
                "Summary",
                "Claims And Evidence",
                "Methods And Evaluation Criteria",
                "Theoretical Claims",
                "Experimental Designs Or Analyses",
                "Supplementary Material",
                "Relation To Broader Scientific Literature",
                "Essential References Not Discussed",
                "Other Strengths And Weaknesses",
                "Other Comments Or Suggestions",
                "Questions For Authors",
            ),
            score_fields={"Overall Recommendation": Scale(low=1, high=5)},
            meta_fields=("Review ID", "Code Of Conduct"),
            accept_biased=True,
        ),
        Venue(
            id="NeurIPS2025",
            hf_folder="NeurIPS_2025",
            year=2025,
            rating_field="Rating",
            rating_scale=Scale(low=1, high=6, values=(1, 2, 3, 4, 5, 6)),
            text_fields=(*_ICLR_TEXT, "Limitations"),
            score_fields={
                "Soundness": _SUB,
                "Presentation": _SUB,
                "Contribution": _SUB,
                "Confidence": _CONF5,
                "Rating": Scale(low=1, high=6),
            },
            meta_fields=(
                "Review ID",
                "Ethical Concerns",
                "Flag For Ethics Review",
                "Code Of Conduct",
            ),
            accept_biased=True,
        ),
    ]
}

_ALIASES = {re.sub(r"[^a-z0-9]", "", k.lower()): k for k in VENUES}


def get_venue(name: str) -> Venue:
    """Look a venue up by any spelling: ``ICLR2024``, ``ICLR_2024``, ``iclr2024``, ``iclr-2024``."""
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    if key in _ALIASES:
        return VENUES[_ALIASES[key]]
    from prism_review.names import closest_first

    raise KeyError(f"unknown venue {name!r}; known venues (closest first): "
                   f"{', '.join(closest_first(name, VENUES))}")


def venue_ids() -> list[str]:
    return list(VENUES)

"""The dimension registry: discovery, order, the Table-1 columns the flags give, text policies."""

from __future__ import annotations

import pytest

from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    dimension_names,
    get_dimension,
    register_dimension,
    unregister_dimension,
)
from prism_review.dimensions.review_text import review_text
from prism_review.pipelines.summary import SummaryRow, table
from prism_review.records import Review, Section

#: PRISM's four dimensions, in their order; an installed plug-in may add others
BUILTIN = ["depth", "novelty", "flaws", "constructiveness"]


def test_builtin_dimensions_discovered_in_order() -> None:
    names = dimension_names()
    assert [n for n in names if n in BUILTIN] == BUILTIN  # all found, in this order
    assert names.index("constructiveness") - names.index("depth") == 3  # nothing in between


def test_table1_columns_come_from_headline_flags() -> None:
    """Table 1 keeps the PRISM paper's columns; ``MetricSpec.headline`` alone decides them
    (before, a table in summary.py overrode the flags: R_premise, S_depth, claim rate and
    D1-D5 were flagged but never shown)."""
    dims = [get_dimension(n) for n in dimension_names() if n in BUILTIN]
    summary = [
        SummaryRow(dimension=d.name, venue="ALL", system="human", metric=s.key, label=s.label,
                   mean=0.5, sd=0.1, n=3)
        for d in dims for s in d.metrics
    ]
    header, body = table(summary, dims, headline_only=True)
    assert header == ["System", "DoA", "NS", "SR", "SSR", "Critical recall", "Minor recall",
                      "nCPS", "MCS"]
    assert body == [["human", *["0.500 ± 0.100 (3)"] * 8]]


class _NoText(Dimension):
    name = "no-text"
    label = "No text"
    metrics = [MetricSpec(key="m", label="M", headline=True)]

    def work_units(self, paper, reviews, systems):
        return []

    async def evaluate(self, unit, ctx):
        return []


def test_dimension_without_text_policy_has_no_review_text() -> None:
    review = Review(paper_id="p", venue="ICLR2024", system="sea", reviewer_id="LLM_Reviewer",
                    text="x", sections=[Section(name="Summary", text="x")])
    register_dimension(_NoText)
    try:
        with pytest.raises(ValueError, match="declares no text policy"):
            review_text(review, "no-text")
        with pytest.raises(ValueError, match="already registered"):
            register_dimension(type("Other", (_NoText,), {}))
    finally:
        unregister_dimension("no-text")
    with pytest.raises(ValueError, match="unknown dimension 'no-text'"):
        review_text(review, "no-text")

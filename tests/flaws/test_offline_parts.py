"""Parts of the offline flaw judge: the shipped criticism model, splitting, topics, taxonomy."""

from __future__ import annotations

import pytest

from prism_review.judge.flaws.criticism import aspect, criticism_probability, models
from prism_review.judge.flaws.splitting import criticisms, is_critical_section, review_sections
from prism_review.judge.flaws.taxonomy import ALL_LABELS, canonical_label
from prism_review.judge.flaws.topics import topic_for


def test_shipped_models_load_and_separate_criticism_from_summary() -> None:
    assert set(models()) == {"criticism", "aspect"}
    crit = criticism_probability("The experiments are limited to small datasets.")
    summ = criticism_probability("The authors propose a new method for graph learning.")
    assert crit > 0.5 > summ
    assert aspect("The writing is hard to follow and the notation is confusing.").startswith("asp_")


def test_sections_and_their_roles() -> None:
    text = "**Summary:**\nA method.\n\n### Weaknesses\n- a\n\nQuestions:\nWhy?"
    assert [s.name for s in review_sections(text)] == ["Summary", "Weaknesses", "Questions"]
    assert is_critical_section("Weaknesses") and is_critical_section("Claims And Evidence")
    assert not is_critical_section("Strengths") and not is_critical_section("Rating")


def test_inline_numbered_points_are_separate_items() -> None:
    text = (
        "**Weaknesses:**\n1. The evaluation protocol is questionable.   "
        "2. The qualitative comparison lacks thoroughness."
    )
    quotes = [c.quote for c in criticisms("Human_1", text)]
    assert quotes == [
        "The evaluation protocol is questionable.",
        "The qualitative comparison lacks thoroughness.",
    ]
    assert all(q in text for q in quotes)


def test_unstructured_review_uses_the_model() -> None:
    text = (
        "The paper studies graph sparsification. The method lacks a comparison with spectral "
        "baselines. Overall it is written clearly."
    )
    quotes = [c.quote for c in criticisms("LLM_Reviewer", text)]
    assert "The method lacks a comparison with spectral baselines." in quotes
    assert "The paper studies graph sparsification." not in quotes


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("There are several typos in the appendix.", "2. Clarity & Presentation - Grammar & Typos"),
        (
            "The comparison omits strong baselines.",
            "4. Experimental Design & Evaluation - Missing/Weak Baselines",
        ),
        (
            "Will the code be released?",
            "7. Reproducibility & Open Science - Missing Code/Data Repository",
        ),
        (
            "The assumption of bounded degree is unrealistic.",
            "6. Methodology & Theoretical Soundness - Strong/Unrealistic Assumptions",
        ),
        (
            "The contribution is incremental over prior work.",
            "1. Novelty & Contribution - Incremental Contribution Only",
        ),
    ],
)
def test_topic_rules(text: str, label: str) -> None:
    assert topic_for(text) == label


def test_every_label_is_canonical_and_has_the_taxonomy_size() -> None:
    assert len(ALL_LABELS) == 32
    assert all(canonical_label(lab) == lab for lab in ALL_LABELS)
    assert canonical_label("9. Something else") in ALL_LABELS

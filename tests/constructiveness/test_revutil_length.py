"""``prism agreement --dataset revutil`` reports the word-count baseline and the judge's margin."""

from __future__ import annotations

from typing import Any

from prism_review.agreement.revutil import agreement_metrics


def _row(text: str, act: Any, ver: Any) -> dict[str, Any]:
    lab = {"majority": None}
    return {
        "review_point": text,
        "labels": {
            "actionability": {"majority": act},
            "grounding_specificity": {"majority": act},
            "verifiability": {"majority": ver},
            "helpfulness": lab,
            "professional_tone": {"majority": 1},
        },
    }


def _arc(d: int) -> dict[str, Any]:
    return {"D1_actionability": d, "D2_specificity": d, "D3_justification": d, "D4_solution": 0, "D5_tone": 2}


def test_word_count_baseline_on_the_judges_points() -> None:
    # labels rise with the judge's score and fall with length: judge 1.0, word count -1.0
    rows = [_row("a b c d e", 1, 1), _row("a b c d", 2, 2), _row("a b c", 3, "X"), _row("a b", 4, 4), _row("a", 5, 5)]
    arcs: list[dict[str, Any] | None] = [_arc(0), _arc(1), _arc(1), _arc(2), None]
    m = agreement_metrics(rows, arcs)
    # the unscored last point and the "X" point are left out of both Spearmans
    assert m["n.actionability"] == 4 and m["n.verifiability"] == 3
    assert m["revutil.actionability.word_count_spearman"] == -1.0
    assert m["revutil.verifiability.word_count_spearman"] == -1.0
    assert m["revutil.actionability.minus_word_count"] == round(m["revutil.actionability.spearman"] + 1.0, 4)
    assert m["revutil.verifiability.minus_word_count"] == 2.0


def test_margin_is_none_when_a_spearman_is_undefined() -> None:
    rows = [_row("a b", 1, 2), _row("c d", 2, 3), _row("e f", 3, 4)]  # every point the same length
    m = agreement_metrics(rows, [_arc(0), _arc(1), _arc(2)])
    assert m["revutil.actionability.word_count_spearman"] is None
    assert m["revutil.actionability.minus_word_count"] is None
    assert m["revutil.actionability.spearman"] == 1.0

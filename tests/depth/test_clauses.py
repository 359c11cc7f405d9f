"""Clause units: gold clause boundaries from SubstanReview spans, and the run-time cue split."""

from __future__ import annotations

from prism_review.judge.depth.clauses import split_clause, substan_sentences


def test_mixed_sentence_split_at_the_span_boundary() -> None:
    review = "The results are not convincing: only one seed is reported in Table 2. Good paper."
    cut = review.index("only")
    spans = [
        {"start": 0, "end": cut - 1, "kind": "claim"},
        {"start": cut, "end": review.index(" Good"), "kind": "evidence"},
        {"start": review.index("Good"), "end": len(review), "kind": "major_claim"},
    ]
    first, second = substan_sentences(review, spans)
    assert first.mixed and first.label == "evidence"  # evidence covers more of the sentence
    assert first.clauses == [
        ("The results are not convincing:", "claim"),
        ("only one seed is reported in Table 2.", "evidence"),
    ]
    assert not second.mixed and second.clauses == [] and second.label == "claim"


def test_minor_share_is_not_mixed() -> None:
    review = "The method is novel and the paper is very well written overall, I think."
    spans = [{"start": 0, "end": 60, "kind": "claim"}, {"start": 60, "end": 66, "kind": "evidence"}]
    (s,) = substan_sentences(review, spans)
    assert not s.mixed and s.clauses == []


def test_split_clause_cues() -> None:
    assert split_clause("The results are not convincing: Table 2 reports one seed.") == (
        "The results are not convincing",
        "Table 2 reports one seed.",
    )
    assert split_clause("The gain is small, because the baseline is tuned poorly.") == (
        "The gain is small",
        "because the baseline is tuned poorly.",
    )
    left, right = split_clause("Some baselines are missing (e.g. BERT and RoBERTa on GLUE).")
    assert right.startswith("(e.g.")
    assert split_clause("Novel: yes, but the proofs are incomplete.") is None  # < 3 words left
    assert split_clause("The paper is well written and easy to follow.") is None  # no cue

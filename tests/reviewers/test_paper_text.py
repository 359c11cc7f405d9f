"""Reference cut and budget of the paper text that generation prompts show."""

from __future__ import annotations

from prism_review.reviewers.paper_text import (
    TRUNCATION_MARK,
    cut_at_references,
    fit_budget,
    prepare_paper,
)
from prism_review.reviewers.review_step import snap_rating
from prism_review.venues import get_venue


def test_cut_at_heading_not_at_body_sentence() -> None:
    text = "Intro.\nReference implementations are released.\nMore body.\n\n## 7 References\n[1] A."
    assert cut_at_references(text) == "Intro.\nReference implementations are released.\nMore body."
    assert cut_at_references("Body\n**References**\n[1]") == "Body"
    assert cut_at_references("Body\nREFERENCES:\n[1]") == "Body"
    assert cut_at_references("Body\n\\begin{thebibliography}{9}\n\\bibitem") == "Body"
    assert cut_at_references("No refs here") == "No refs here"


def test_early_heading_ignored_in_long_text() -> None:
    text = "Contents\nReferences\n" + "body " * 1000 + "\nReferences\n[1] x"
    assert cut_at_references(text).startswith("Contents\nReferences\nbody")
    assert not cut_at_references(text).endswith("[1] x")


def test_fit_budget_cuts_at_paragraph() -> None:
    text = "a" * 90 + "\n\n" + "b" * 50
    out, cut = fit_budget(text, 100)
    assert cut and out == "a" * 90 + TRUNCATION_MARK
    assert fit_budget("short", 100) == ("short", False)
    assert fit_budget("x" * 200, None) == ("x" * 200, False)
    assert prepare_paper("body\n## References\nrefs", 0) == "body"


def test_snap_rating_to_venue_scale() -> None:
    iclr25, icml, iclr26 = get_venue("ICLR2025"), get_venue("ICML2025"), get_venue("ICLR2026")
    assert snap_rating(iclr25, 7) == 6  # tie between 6 and 8 → the lower point
    assert snap_rating(iclr25, 9.2) == 10
    assert snap_rating(iclr25, 11) is None and snap_rating(iclr25, 0) is None
    assert snap_rating(icml, 3.4) == 3
    assert snap_rating(iclr26, 0) == 0


def test_lenient_review_and_comment_fields() -> None:
    from prism_review.reviewers.comment_step import Comment
    from prism_review.reviewers.review_step import ReviewDraft

    d = ReviewDraft(summary="s", strengths="- a\n- b\n", weaknesses=["w"], questions="", rating="6", confidence=4.0)
    assert d.strengths == ["a", "b"] and d.questions == [] and d.rating == 6.0
    assert Comment(title="t", quote="q", explanation="e", comment_type="Logical flaw").comment_type == "logical"
    assert Comment(title="t", quote="q", explanation="e", comment_type="Math error").comment_type == "technical"

"""Every row of the prism-reference §2 table: the clean default and the original (compat)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.data.layout import EvalLayout, demo_root
from prism_review.dimensions.novelty import panel_text
from prism_review.dimensions.review_text import review_text
from prism_review.records import Review, Section
from prism_review.systems import cyclereview, deepreview, reviewer2, sea, treereview
from prism_review.testing import layout_samples as S


@pytest.fixture
def layout(tmp_path: Path) -> EvalLayout:
    S.write_layout(
        tmp_path,
        {
            "ICLR2024": ["p"],
            "ICLR2025": ["q"],
            "ICML2025": ["m"],
            "NeurIPS2025": ["n"],
            "ICLR2026": ["c"],
        },
    )
    return EvalLayout(tmp_path)


def one(layout: EvalLayout, venue: str, pid: str, system: str) -> Review:
    return layout.load_reviews(venue, pid, system)[0]


def headers(text: str) -> list[str]:
    """Section headers of a rendered text (the sample's bold sub-heading is not one)."""
    out = [
        line[2:-3] for line in text.split("\n") if line.startswith("**") and line.endswith(":**")
    ]
    return [h for h in out if h != "Major concerns"]


# --- Human ---------------------------------------------------------------------------------


def test_human_iclr2024_real_record_all_dimensions() -> None:
    reviews = EvalLayout(demo_root()).load_reviews("ICLR2024", "0A5o6dCKeK", "human")
    r = reviews[0]
    assert headers(review_text(r, "depth")) == ["Summary", "Strengths", "Weaknesses"]
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions"]
    assert headers(review_text(r, "constructiveness")) == [
        "Summary",
        "Strengths",
        "Weaknesses",
        "Questions",
    ]
    assert headers(review_text(r, "novelty")) == ["Summary", "Strengths", "Weaknesses", "Questions"]
    for dim in ("depth", "novelty", "flaws", "constructiveness"):
        assert "3 good" not in review_text(r, dim)  # score fields never reach the judge
    # compat: depth and flaws agree with the clean ICLR formatter on ICLR 2024
    assert review_text(r, "depth", compat=True) == review_text(r, "depth")
    assert review_text(r, "flaws", compat=True) == review_text(r, "flaws")


@pytest.mark.parametrize("combined", ["Strength And Weaknesses", "Main Review"])
def test_human_older_iclr_forms_keep_their_critique(combined: str) -> None:
    # the ICLR 2022/2023 forms hold strengths and weaknesses in one field: depth and flaws read
    # it in place of the missing Strengths/Weaknesses (the demo's RevUtil human reviews)
    r = Review(
        paper_id="p",
        venue="ICLR2024",
        system="human",
        reviewer_id="Human_1",
        sections=[
            Section(name="Summary Of The Paper", text="It proposes X."),
            Section(name=combined, text="Strengths: fast.\nWeaknesses: no baseline."),
            Section(name="Clarity, Quality, Novelty And Reproducibility", text="Clear."),
            Section(name="Summary Of The Review", text="Reject."),
        ],
    )
    for dim in ("depth", "flaws"):
        text = review_text(r, dim)
        assert headers(text) == ["Summary Of The Paper", combined, "Summary Of The Review"], dim
        assert "no baseline" in text


def test_human_iclr2025_limitations_when_substantive() -> None:
    fields = {
        "Summary": "S.",
        "Weaknesses": "W.",
        "Questions": "Q.",
        "Limitations": "The method is not tested beyond English corpora at all.",
    }
    r = Review(
        paper_id="p",
        venue="ICLR2025",
        system="human",
        reviewer_id="Human_1",
        sections=[Section(name=k, text=v) for k, v in fields.items()],
        extra={"fields": fields},
    )
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions", "Limitations"]
    r.sections[-1] = Section(name="Limitations", text="Yes, they are discussed.")
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions"]
    r2 = r.model_copy(update={"venue": "ICLR2024"})
    r2.sections[-1] = Section(name="Limitations", text=fields["Limitations"])
    assert "Limitations" not in headers(review_text(r2, "flaws"))  # ICLR 2024 row: S, W, Q


def test_human_icml_uses_rubric_fields_clean_but_only_summary_in_compat_depth(
    layout: EvalLayout,
) -> None:
    r = one(layout, "ICML2025", "m", "human")
    clean = review_text(r, "depth")
    assert "Claims And Evidence" in headers(clean) and "Questions For Authors" in headers(clean)
    assert headers(review_text(r, "depth", compat=True)) == ["Summary"]  # risk D1
    assert headers(review_text(r, "flaws")) == headers(clean)  # the ICML rubric row
    # compat constructiveness: generic formatter, which keeps ICML's meta/score fields (K5)
    compat = review_text(r, "constructiveness", compat=True)
    assert "Code Of Conduct" in headers(compat) and "Overall Recommendation" in headers(compat)
    assert "Code Of Conduct" not in headers(review_text(r, "constructiveness"))


def test_human_neurips_flaws_labels_strengths(layout: EvalLayout) -> None:
    r = one(layout, "NeurIPS2025", "n", "human")
    text = review_text(r, "flaws")
    assert headers(text) == ["Summary", "Strengths (may also contain weaknesses)", "Questions"]
    assert "one seed only" in text
    assert headers(review_text(r, "depth")) == ["Summary", "Strengths"]


def test_human_constructiveness_puts_first_four_first() -> None:
    secs = [
        Section(name="Limitations", text="L is long enough here."),
        Section(name="Questions", text="Q"),
        Section(name="Summary", text="S"),
    ]
    r = Review(paper_id="p", venue="ICLR2025", system="human", reviewer_id="Human_1", sections=secs)
    assert headers(review_text(r, "constructiveness")) == ["Summary", "Questions", "Limitations"]


def test_human_novelty_panel(layout: EvalLayout) -> None:
    reviews = layout.load_reviews("ICLR2024", "p", "human")
    clean = panel_text(reviews, "ICLR2024")
    assert clean.count("### Reviewer Human_") == 2 and "Rating" not in clean
    compat = panel_text(reviews, "ICLR2024", compat=True)
    assert "### Reviewer 1 (Rating: 6: marginally above the acceptance threshold)" in compat
    assert "## Soundness\n3 good" in compat  # the original mined score text too (N8)
    assert "### Reviewer 2 (Rating: 3: reject, not good enough)" in compat
    # compat novelty of one human review = the original's panel of the whole paper
    assert review_text(reviews[0], "novelty", compat=True) == compat
    assert panel_text([], "ICLR2024") == ""


# --- SEA / TreeReview ----------------------------------------------------------------------


def test_sea_rows(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2025", "q", "sea")
    depth = review_text(r, "depth")
    assert headers(depth) == ["Summary", "Strengths", "Weaknesses"]
    assert "How is the number of experts" not in depth  # D3 fixed
    d3 = review_text(r, "depth", compat=True)
    assert "How is the number of experts" in d3 and "Decision: Accept" in d3  # D3 reproduced
    assert review_text(r, "novelty", compat=True) == S.SEA_TXT  # raw .txt
    assert "6: marginally" not in review_text(r, "novelty")
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions"]
    assert headers(review_text(r, "flaws", compat=True)) == ["Summary", "Weaknesses", "Questions"]
    assert review_text(r, "constructiveness", compat=True) == S.SEA_TXT
    assert headers(review_text(r, "constructiveness")) == [
        "Summary",
        "Strengths",
        "Weaknesses",
        "Questions",
    ]


def test_sea_iclr2024_flaws_compat_is_raw(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2024", "p", "sea")
    assert review_text(r, "flaws", compat=True) == S.SEA_TXT
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions"]


def test_tree_rows(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2025", "q", "treereview")
    assert headers(review_text(r, "depth")) == ["Summary", "Strengths", "Weaknesses"]
    assert "Why top-2" not in review_text(r, "depth")
    assert "Why top-2" in review_text(r, "depth", compat=True)
    assert review_text(r, "novelty", compat=True) == S.TREE_REVIEW
    assert review_text(r, "constructiveness", compat=True) == S.TREE_REVIEW
    flaws_compat = review_text(r, "flaws", compat=True)
    assert (
        "Only three benchmarks" not in flaws_compat
    )  # the line-based extractor stops at **Major concerns:**
    assert "Only three benchmarks" in review_text(r, "flaws")


# --- Reviewer2 -----------------------------------------------------------------------------


def test_reviewer2_rows(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2025", "q", "reviewer2")
    assert headers(review_text(r, "depth")) == ["Summary Of The Paper", "Strengths", "Weaknesses"]
    compat_depth = review_text(r, "depth", compat=True)
    assert headers(compat_depth) == [
        "Summary Of The Paper",
        "Strengths",
        "Weaknesses",
        "Limitations Not Addressed",
        "Brief Justification",
    ]
    raw = review_text(r, "novelty", compat=True)
    assert raw == S.REVIEWER2_TXT and "<think>" in raw  # N8: header and think included
    assert "<think>" not in review_text(r, "novelty") and "PAPER:" not in review_text(r, "novelty")
    assert headers(review_text(r, "flaws")) == [
        "Summary Of The Paper",
        "Weaknesses",
        "Questions For The Authors",
        "Limitations Not Addressed By The Authors",
    ]
    assert "Brief Justification" in headers(review_text(r, "flaws", compat=True))
    cons = review_text(r, "constructiveness", compat=True)
    assert cons.startswith("## Summary Of The Paper") and not cons.rstrip().endswith("=")
    assert "rating should probably" not in cons


# --- DeepReview ----------------------------------------------------------------------------


def test_deepreview_layout_a_rows(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2025", "q", "deepreview")
    assert headers(review_text(r, "depth")) == ["Summary", "Strengths", "Weaknesses"]
    assert headers(review_text(r, "depth", compat=True)) == ["Summary", "Strengths", "Weaknesses"]
    nov = review_text(r, "novelty", compat=True)
    assert "A second simulated reviewer" in nov and "Borderline accept." in nov  # all items + meta
    assert "A second simulated reviewer" not in review_text(r, "novelty")  # clean: reviewer 1
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions"]
    assert "---" not in review_text(r, "flaws", compat=True)
    assert review_text(r, "constructiveness", compat=True).startswith("### Summary")


def test_deepreview_layout_b_rows(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2026", "c", "deepreview")
    assert review_text(r, "depth", compat=True) == ""  # D4: paper skipped by the original
    assert review_text(r, "constructiveness", compat=True) == ""
    assert headers(review_text(r, "depth")) == ["Summary", "Strengths", "Weaknesses"]  # REC
    assert headers(review_text(r, "flaws", compat=True)) == ["Summary", "Weaknesses", "Questions"]
    assert "## Reviewer 2" in review_text(r, "novelty", compat=True)  # raw_text


# --- CycleReview ---------------------------------------------------------------------------


def test_cyclereview_rows(layout: EvalLayout) -> None:
    r = one(layout, "ICLR2025", "q", "cyclereview")
    assert headers(review_text(r, "depth")) == ["Summary", "Strengths", "Weaknesses"]
    assert headers(review_text(r, "depth", compat=True)) == ["Summary", "Strengths", "Weaknesses"]
    assert "Related work is thin" not in review_text(r, "depth", compat=True)
    nov = review_text(r, "novelty", compat=True)
    assert "Reviews-list view." in nov and "Reject." in nov  # reviews[] + meta_review
    # flaws/constructiveness compat: reviews[0], S/W/Q only, so no Strengths (K8)
    for dim in ("flaws", "constructiveness"):
        compat = review_text(r, dim, compat=True)
        assert headers(compat) == ["Summary", "Weaknesses"] and "Reviews-list view." in compat
    assert "Strengths" in headers(review_text(r, "constructiveness"))  # REC: Strengths kept
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses", "Questions"]


# --- fallback, BYO, errors -----------------------------------------------------------------


def test_fallback_whole_text_when_no_header_matches(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text(
        "<think>hmm</think>\nA review without any headers. It is short.", encoding="utf-8"
    )
    (r,) = sea.load(path, "p", "ICLR2025")
    for dim in ("depth", "novelty", "flaws", "constructiveness"):
        assert review_text(r, dim) == "A review without any headers. It is short."
    assert review_text(r, "depth", compat=True) == "A review without any headers. It is short."


def test_think_stripped_everywhere_in_clean_mode(tmp_path: Path) -> None:
    cases = [
        (reviewer2, "r.txt", S.REVIEWER2_TXT),
        (
            treereview,
            "t.json",
            json.dumps({"full_review": "<think>secret</think>" + S.TREE_REVIEW}),
        ),
        (
            deepreview,
            "d.json",
            json.dumps(
                {
                    "generated_review": [
                        {
                            "reviews": [
                                {"reviewer_id": 1, "text": "<think>secret</think>" + S.DEEP_R1}
                            ]
                        }
                    ]
                }
            ),
        ),
        (
            cyclereview,
            "c.json",
            json.dumps({"generated_review": {"content": "<think>secret</think>" + S.CYCLE_R1}}),
        ),
    ]
    for mod, name, text in cases:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        (r,) = mod.load(path, "p", "ICLR2025")
        for dim in ("depth", "novelty", "flaws", "constructiveness"):
            out = review_text(r, dim)
            assert "secret" not in out and "rating should probably" not in out, (mod, dim)


def test_byo_policies(layout: EvalLayout) -> None:
    (r,) = layout.load_reviews("ICLR2024", "p", "my_reviewer")
    assert headers(review_text(r, "flaws")) == ["Summary", "Weaknesses"]
    assert review_text(r, "flaws", compat=True) == review_text(r, "flaws")  # no original: clean
    odd = Review(
        paper_id="x",
        venue="ICLR2024",
        system="oai",
        reviewer_id="LLM_Reviewer",
        sections=[Section(name="Wrong constant", text="> 4%\n\nTable 2 says 6%.")],
    )
    assert "Table 2 says 6%" in review_text(odd, "flaws")  # unrecognised names → whole text
    combined = Review(
        paper_id="x",
        venue="ICLR2024",
        system="oai",
        reviewer_id="LLM_Reviewer",
        sections=[
            Section(name="Summary", text="S"),
            Section(name="Strengths and Weaknesses", text="+ a\n- b"),
        ],
    )
    assert headers(review_text(combined, "flaws")) == ["Summary", "Strengths and Weaknesses"]


def test_unknown_dimension_rejected(layout: EvalLayout) -> None:
    with pytest.raises(ValueError, match="unknown dimension"):
        review_text(one(layout, "ICLR2024", "p", "sea"), "clarity")

"""Each reviewer-system adapter on small files in the §1.3 shapes, plus malformed inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.data.layout import demo_root
from prism_review.guards.errors import DataError
from prism_review.systems import cyclereview, deepreview, human, reviewer2, sea, treereview
from prism_review.testing import layout_samples as S


def _json(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _txt(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- human ---------------------------------------------------------------------------------


def test_human_iclr2024_real_record() -> None:
    path = demo_root() / "ICLR2024" / "human_reviews" / "0A5o6dCKeK.json"
    reviews, skipped = human.load_human(path, "0A5o6dCKeK", "ICLR2024")
    assert skipped == []
    assert [r.reviewer_id for r in reviews] == ["Human_1", "Human_2", "Human_3", "Human_4"]
    first = reviews[0]
    assert [s.name for s in first.sections] == ["Summary", "Strengths", "Weaknesses", "Questions"]
    assert first.raw_scores["Soundness"] == "3 good"
    assert first.raw_scores["Rating"] == "6: marginally above the acceptance threshold"
    assert first.scores["Soundness"] == pytest.approx(2 / 3)  # (3-1)/(4-1)
    assert first.scores["Presentation"] == pytest.approx(1.0)  # "4 excellent"
    assert first.scores["Rating"] == pytest.approx(5 / 9)  # (6-1)/(10-1)
    assert first.scores["Confidence"] == pytest.approx(0.75)  # (4-1)/(5-1)
    assert reviews[3].scores["Rating"] == pytest.approx(7 / 9)  # "8: accept, good paper"
    assert first.extra["raw_text"] == path.read_text(encoding="utf-8")
    assert first.system == "human" and first.venue == "ICLR2024"


def test_human_numbering_keeps_position_and_counts_skips(tmp_path: Path) -> None:
    path = _json(tmp_path, "p.json", S.human_iclr2024())
    reviews, skipped = human.load_human(path, "p", "ICLR2024")
    assert [r.reviewer_id for r in reviews] == ["Human_1", "Human_3"]
    assert skipped == ["reviews[1] has no text"]
    # "n/a" answers are dropped, the rest of the review stays
    assert [s.name for s in reviews[1].sections] == ["Summary", "Strengths", "Weaknesses"]


def test_human_icml_rubric_fields(tmp_path: Path) -> None:
    path = _json(tmp_path, "m.json", S.human_icml2025())
    (r,), _ = human.load_human(path, "m", "ICML2025")
    names = [s.name for s in r.sections]
    assert "Strengths" not in names and "Weaknesses" not in names
    assert names[:2] == ["Summary", "Claims And Evidence"]
    assert "Theoretical Claims" not in names  # "N/A"
    assert "Supplementary Material" not in names  # "none."
    assert "Code Of Conduct" not in names and r.extra["meta"]["Code Of Conduct"] == "Affirmed."
    assert r.raw_scores == {"Overall Recommendation": "4: Accept"}
    assert r.scores["Overall Recommendation"] == pytest.approx(0.75)  # (4-1)/(5-1)
    assert r.extra["review_id"] == "r1"


def test_human_neurips_lists_joined_and_yes_skipped(tmp_path: Path) -> None:
    path = _json(tmp_path, "n.json", S.human_neurips2025())
    (r,), _ = human.load_human(path, "n", "NeurIPS2025")
    assert [s.name for s in r.sections] == ["Summary", "Strengths", "Questions"]
    assert r.section("Questions") == "Which seeds?\nLatency?"
    assert r.scores["Rating"] == pytest.approx(0.6)  # (4-1)/(6-1)
    assert "Ethical Concerns" in r.extra["meta"]
    assert r.extra["strengths_may_contain_weaknesses"] is True


def test_human_string_review_and_malformed_entries(tmp_path: Path) -> None:
    path = _json(tmp_path, "s.json", {"reviews": ["Plain text review.", "n/a"]})
    reviews, skipped = human.load_human(path, "s", "ICLR2025")
    assert [(r.reviewer_id, r.sections[0].text) for r in reviews] == [
        ("Human_1", "Plain text review.")
    ]
    assert skipped == ["reviews[1] has no text"]
    bad = _json(tmp_path, "b.json", {"reviews": [{"Summary": "ok"}, 7]})
    with pytest.raises(DataError, match=r"b\.json.*reviews\[1\]"):
        human.load_human(bad, "b", "ICLR2025")
    bad2 = _json(tmp_path, "c.json", {"reviews": [{"Summary": {"nested": 1}}]})
    with pytest.raises(DataError, match=r"reviews\[0\]\.Summary"):
        human.load_human(bad2, "c", "ICLR2025")
    bad3 = _json(tmp_path, "d.json", {"reviews": "text"})
    with pytest.raises(DataError, match="'reviews'"):
        human.load_human(bad3, "d", "ICLR2025")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"reviews": [{"Summary": "tru', "invalid JSON"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"[]", "JSON object"),
    ],
)
def test_human_malformed_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(DataError, match=message) as info:
        human.load_human(path, "x", "ICLR2024")
    assert str(path) in str(info.value)


# --- SEA, Reviewer2, TreeReview ------------------------------------------------------------


def test_sea(tmp_path: Path) -> None:
    path = _txt(tmp_path, "p.txt", S.SEA_TXT)
    (r,) = sea.load(path, "p", "ICLR2025")
    assert r.reviewer_id == "LLM_Reviewer" and r.system == "sea"
    assert [s.name for s in r.sections][:4] == ["Summary", "Strengths", "Weaknesses", "Questions"]
    assert "Questions" not in r.section("Weaknesses")  # D3 fixed in the sections
    assert r.raw_scores["Rating"] == "6: marginally above the acceptance threshold"
    assert r.scores["Presentation"] == pytest.approx(1 / 3)
    assert r.extra["raw_text"] == S.SEA_TXT


def test_sea_empty_file_gives_no_review(tmp_path: Path) -> None:
    assert sea.load(_txt(tmp_path, "e.txt", "  \n"), "e", "ICLR2025") == []
    assert sea.check(tmp_path / "e.txt") == [(None, "review file is empty")]


def test_reviewer2(tmp_path: Path) -> None:
    path = _txt(tmp_path, "p.txt", S.REVIEWER2_TXT)
    (r,) = reviewer2.load(path, "p", "ICLR2025")
    assert r.extra["paper_title"] == "Sparse Adapters for Long-Context Retrieval"
    assert "rating should probably" in r.extra["think"]
    assert all("<think>" not in s.text and "rating should" not in s.text for s in r.sections)
    assert r.sections[0].name == "Summary Of The Paper"
    assert r.sections[-1].name == "Brief Justification For Rating"
    assert r.sections[-1].text == "Promising idea, but the evidence is thin."  # no trailing ====
    assert r.raw_scores["Rating"] == "5" and r.scores["Rating"] == pytest.approx(4 / 9)
    assert "PAPER:" not in r.extra["body"]


def test_reviewer2_only_reasoning_gives_no_review(tmp_path: Path) -> None:
    text = "PAPER: T\n=====\nREVIEW\n-----\n<think>\nI ran out of tokens"
    assert reviewer2.load(_txt(tmp_path, "t.txt", text), "t", "ICLR2025") == []


def test_treereview(tmp_path: Path) -> None:
    path = _json(tmp_path, "p_review.json", {"paper_id": "p", "full_review": S.TREE_REVIEW})
    (r,) = treereview.load(path, "p", "ICLR2025")
    assert [s.name for s in r.sections][:4] == ["Summary", "Strengths", "Weaknesses", "Questions"]
    assert "Major concerns" in r.section("Weaknesses")
    assert r.raw_scores["Soundness"] == "3"
    with pytest.raises(DataError, match="full_review"):
        treereview.load(_json(tmp_path, "a.json", {"paper_id": "p"}), "p", "ICLR2025")
    with pytest.raises(DataError, match="full_review"):
        treereview.load(_json(tmp_path, "b.json", {"full_review": ["x"]}), "p", "ICLR2025")
    assert treereview.check({"full_review": ""}) != []
    assert treereview.check({"full_review": "text"}) == []


# --- DeepReview ----------------------------------------------------------------------------


def test_deepreview_layout_a_picks_reviewer_one(tmp_path: Path) -> None:
    path = _json(tmp_path, "p.json", S.deepreview_a("p"))
    (r,) = deepreview.load(path, "p", "ICLR2025")
    assert r.extra["layout"] == "A" and r.extra["chosen_reviewer"] == 1
    assert r.section("Summary") == "Sparse adapters for retrieval."
    assert r.section("Weaknesses") == "- Missing a dense baseline."  # trailing --- dropped
    assert [x["reviewer_id"] for x in r.extra["simulated_reviewers"]] == [2, 1]
    assert r.extra["meta_review"] == "Borderline accept." and r.extra["decision"] == "Accept"
    assert r.raw_scores == {"Soundness": "3", "Rating": "6"}


def test_deepreview_layout_b_reads_reviewer_blocks(tmp_path: Path) -> None:
    path = _json(tmp_path, "p.json", S.deepreview_b("p"))
    (r,) = deepreview.load(path, "p", "ICLR2026")
    assert r.extra["layout"] == "B"
    assert r.section("Summary") == "Sparse adapters for retrieval."
    assert len(r.extra["simulated_reviewers"]) == 2
    second = r.extra["simulated_reviewers"][1]["text"]
    assert "Meta Review" not in second and "Accept overall" not in second


def test_deepreview_fallback_when_no_reviewer_one(tmp_path: Path) -> None:
    data = S.deepreview_a("p")
    data["generated_review"][0]["reviews"] = [{"reviewer_id": 3, "text": "### Summary\nX"}]
    (r,) = deepreview.load(_json(tmp_path, "p.json", data), "p", "ICLR2025")
    assert r.extra["chosen_reviewer"] == 3


def test_deepreview_malformed(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="generated_review"):
        deepreview.load(_json(tmp_path, "a.json", {"generated_review": "x"}), "a", "ICLR2025")
    bad = {"generated_review": [{"reviews": [{"reviewer_id": 1, "text": 5}]}]}
    with pytest.raises(DataError, match=r"generated_review\[0\]\.reviews\[0\]\.text"):
        deepreview.load(_json(tmp_path, "b.json", bad), "b", "ICLR2025")
    empty = {"generated_review": [{"reviews": [], "raw_text": ""}]}
    assert deepreview.load(_json(tmp_path, "c.json", empty), "c", "ICLR2025") == []
    assert deepreview.check(empty) != []
    assert deepreview.check(S.deepreview_b("p")) == []


# --- CycleReview ---------------------------------------------------------------------------


def test_cyclereview_content_first_block(tmp_path: Path) -> None:
    (r,) = cyclereview.load(_json(tmp_path, "p.json", S.cyclereview("p")), "p", "ICLR2025")
    assert r.extra["chosen_source"] == "content"
    assert [s.name for s in r.sections] == [
        "Summary",
        "Strengths",
        "Weaknesses",
        "Questions",
        "Rating",
    ]
    assert len(r.extra["simulated_reviewers"]) == 2
    assert r.extra["avg_rating"] == 5.0 and r.extra["paper_decision"] == "Reject"


def test_cyclereview_fallbacks(tmp_path: Path) -> None:
    data = S.cyclereview("p")
    data["generated_review"]["content"] = ""
    (r,) = cyclereview.load(_json(tmp_path, "a.json", data), "p", "ICLR2025")
    assert r.extra["chosen_source"] == "reviews[0]" and r.section("Summary") == "Reviews-list view."
    data["generated_review"]["reviews"] = []
    (r,) = cyclereview.load(_json(tmp_path, "b.json", data), "p", "ICLR2025")
    assert [(s.name, s.text) for s in r.sections] == [
        ("Weaknesses", "No variance reported."),
        ("Questions", "Which seeds?"),
    ]


def test_cyclereview_malformed(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="generated_review"):
        cyclereview.load(_json(tmp_path, "a.json", {"generated_review": []}), "a", "ICLR2025")
    bad = {"generated_review": {"content": 3}}
    with pytest.raises(DataError, match=r"generated_review\.content"):
        cyclereview.load(_json(tmp_path, "b.json", bad), "b", "ICLR2025")
    assert cyclereview.check({"generated_review": {"content": "", "reviews": [""]}}) != []
    assert cyclereview.check({"generated_review": {"reviews": [{"text": "x"}]}}) == []


def test_truncated_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"generated_review": {"content": "## Rev', encoding="utf-8")
    for mod in (cyclereview, deepreview, treereview):
        with pytest.raises(DataError, match="invalid JSON") as info:
            mod.load(path, "p", "ICLR2025")
        assert info.value.path == str(path)


# DeepReviewer's own raw output shape: a reasoning preamble, the simulated reviewers inside
# \boxed_simreviewers{...} separated by ********** lines, then a verification block and the
# final review.
DEEP_RAW = """I will use Standard Mode for comprehensive thinking. I will simulate 2 reviewers.

\\boxed_simreviewers{
## Reviewer 1

### Summary

The paper proposes sparse adapters.

### Soundness

3 good

### Weaknesses

#### comment

- No latency numbers.

### Rating

6: marginally above the acceptance threshold

**********

## Reviewer 2

### Summary

Second view.

**********

}

I have finished generating simulated reviews. Next, verification:

\\boxed_verification{
**Review 1 Weaknesses:**
1. Weakness Statement: "No latency numbers." Validity status: Valid
}

\\boxed_review{
## Summary:
Final merged review.
}
"""


def test_deepreview_real_raw_text_shape(tmp_path: Path) -> None:
    data = {"paper_id": "p", "generated_review": [{"raw_text": DEEP_RAW, "reviews": []}]}
    (r,) = deepreview.load(_json(tmp_path, "p.json", data), "p", "ICLR2026")
    assert r.extra["layout"] == "B"
    assert [s.name for s in r.sections] == ["Summary", "Soundness", "Weaknesses", "Rating"]
    assert r.section("Weaknesses") == "#### comment\n\n- No latency numbers."
    assert r.section("Rating") == "6: marginally above the acceptance threshold"  # no ****, no }
    second = r.extra["simulated_reviewers"][1]["text"]
    assert second == "### Summary\n\nSecond view."  # verification and final review not swallowed
    assert len(r.extra["simulated_reviewers"]) == 2


def test_cyclereview_content_with_trailing_meta_review(tmp_path: Path) -> None:
    content = (
        f"{S.CYCLE_R1}\n**********\n{S.CYCLE_R2}\n**********\n"
        "## Meta Review\nThe reviewers disagree.\n\n## Paper Decision\nReject"
    )
    data = {"generated_review": {"content": content}}
    (r,) = cyclereview.load(_json(tmp_path, "p.json", data), "p", "ICLR2025")
    texts = [x["text"] for x in r.extra["simulated_reviewers"]]
    assert len(texts) == 2 and all("Meta Review" not in t and "Reject" not in t for t in texts)
    assert cyclereview.content_blocks("part one\n*****\npart two") == ["part one", "part two"]


def test_cyclereview_reviews_given_as_objects(tmp_path: Path) -> None:
    data = {
        "generated_review": {
            "reviews": [{"summary": "S.", "weaknesses": ["w1", "w2"], "rating": 5}]
        }
    }
    (r,) = cyclereview.load(_json(tmp_path, "p.json", data), "p", "ICLR2025")
    assert [(s.name, s.text) for s in r.sections] == [
        ("summary", "S."),
        ("weaknesses", "w1\nw2"),
        ("rating", "5"),
    ]

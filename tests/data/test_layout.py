"""EvalLayout: venues, manifests, systems, papers, reviews, paper metadata, data-root discovery."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.data.layout import EvalLayout, demo_root, find_data_root, guess_title_abstract
from prism_review.guards.errors import DataError
from prism_review.records import DecisionKind
from prism_review.systems.registry import get_system
from prism_review.testing import layout_samples as S


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return S.write_layout(tmp_path / "data", {"ICLR_2024": ["p2", "p1"], "ICML2025": ["m1"]})


def test_venues_in_registry_order_and_hf_names(root: Path) -> None:
    layout = EvalLayout(root)
    assert layout.venues() == ["ICLR2024", "ICML2025"]
    assert layout.venue_dir("iclr2024").name == "ICLR_2024"
    with pytest.raises(DataError, match="venue folder not found"):
        layout.venue_dir("NeurIPS2025")
    with pytest.raises(KeyError):
        layout.venue_dir("CVPR2024")


def test_paper_ids_listing_then_manifests(root: Path) -> None:
    layout = EvalLayout(root)
    vdir = root / "ICLR_2024"
    (vdir / "papers" / "p3.grobid.txt").write_text("x", encoding="utf-8")
    assert layout.paper_ids("ICLR2024") == ["p1", "p2", "p3"]  # .grobid.txt stripped, sorted
    (vdir / "paper_ids_200_iclr2024.txt").write_text("p2\np1\n\n# comment\np3\n", encoding="utf-8")
    assert layout.paper_ids("ICLR2024") == ["p2", "p1", "p3"]  # manifest order wins
    assert layout.paper_ids("ICLR2024", "50") == ["p2", "p1", "p3"]  # no 50 file: first 50
    (vdir / "paper_ids_50_iclr2024.txt").write_text("p2\n", encoding="utf-8")
    assert layout.paper_ids("ICLR2024", "50") == ["p2"]
    assert layout.paper_ids("ICLR2024", "paper_ids_50_iclr2024.txt") == ["p2"]
    with pytest.raises(DataError, match="manifest not found"):
        layout.paper_ids("ICLR2024", "missing.txt")


def test_systems_human_first_then_builtins_then_byo(root: Path) -> None:
    layout = EvalLayout(root)
    vdir = root / "ICLR_2024"
    (vdir / "aaa_first_by_name").mkdir()
    (vdir / "aaa_first_by_name" / "x.jsonl").write_text(
        '{"paper_id": "p1", "text": "t"}\n', encoding="utf-8"
    )
    (vdir / "not_a_system").mkdir()  # no JSONL: ignored
    systems = layout.systems("ICLR2024")
    assert systems == [
        "human",
        "sea",
        "reviewer2",
        "treereview",
        "deepreview",
        "cyclereview",
        "aaa_first_by_name",
        "my_reviewer",
    ]
    assert get_system("my_reviewer").folder == "my_reviewer"  # registered on discovery


def test_load_paper(root: Path) -> None:
    paper = EvalLayout(root).load_paper("ICLR_2024", "p1")
    assert paper.venue == "ICLR2024" and paper.paper_id == "p1"
    assert paper.title == "Sparse Adapters for Long-Context Retrieval"
    assert paper.abstract.startswith("We propose sparse adapters")
    assert (
        paper.decision.kind == DecisionKind.ACCEPT_POSTER
        and paper.decision.raw == "Accept (poster)"
    )
    assert "The reviewers agree" in (paper.meta_review or "")
    assert "Limited evaluation." in (paper.meta_review or "")
    assert "## References" in paper.full_text


def test_load_paper_prefers_txt_then_grobid_and_reports_missing(root: Path) -> None:
    pdir = root / "ICLR_2024" / "papers"
    (pdir / "g.grobid.txt").write_text("GROBID TEXT\n\nAbstract\nThe abstract.\n", encoding="utf-8")
    layout = EvalLayout(root)
    paper = layout.load_paper("ICLR2024", "g")
    assert paper.full_text.startswith("GROBID") and paper.decision.kind == DecisionKind.UNKNOWN
    assert paper.abstract == "The abstract."
    with pytest.raises(DataError, match="paper text not found"):
        layout.load_paper("ICLR2024", "nope")
    (pdir / "bad.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DataError, match="UTF-8"):
        layout.load_paper("ICLR2024", "bad")
    (pdir / "empty.txt").write_text(" \n", encoding="utf-8")
    with pytest.raises(DataError, match="empty"):
        layout.load_paper("ICLR2024", "empty")


def test_paper_metadata_file_for_papers_without_human_reviews(root: Path) -> None:
    vdir = root / "ICLR_2024"
    (vdir / "papers" / "x.txt").write_text("Some text", encoding="utf-8")
    (vdir / "paper_metadata.jsonl").write_text(
        json.dumps(
            {"paper_id": "x", "title": "Real Title", "decision": "rejected", "keywords": ["k"]}
        )
        + "\n",
        encoding="utf-8",
    )
    layout = EvalLayout(root)
    paper = layout.load_paper("ICLR2024", "x")
    assert (paper.title, paper.decision.kind, paper.keywords) == (
        "Real Title",
        DecisionKind.REJECT,
        ["k"],
    )
    meta = layout.paper_meta("ICLR2024", "x")
    assert (
        meta["accepted"] is False and meta["avg_rating"] is None and meta["avg_rating_norm"] is None
    )


def test_load_reviews_per_system(root: Path) -> None:
    layout = EvalLayout(root)
    counts = {s: len(layout.load_reviews("ICLR2024", "p1", s)) for s in layout.systems("ICLR2024")}
    assert counts == {
        "human": 2,
        "sea": 1,
        "reviewer2": 1,
        "treereview": 1,
        "deepreview": 1,
        "cyclereview": 1,
        "my_reviewer": 1,
    }
    assert layout.skipped == [
        (str(root / "ICLR_2024" / "human_reviews" / "p1.json"), "reviews[1] has no text")
    ]
    # a system without a file for this paper → []
    (root / "ICLR_2024" / "sea" / "p2.txt").unlink()
    assert layout.load_reviews("ICLR2024", "p2", "sea") == []
    assert layout.load_reviews("ICLR2024", "p1", "my_reviewer")[0].system == "my_reviewer"
    for spelling in ("tree", "TreeReview", "treereview"):
        assert layout.load_reviews("ICLR2024", "p1", spelling)[0].system == "treereview"
    assert layout.system_dir("ICLR2024", "TreeReview").name == "tree"
    with pytest.raises(KeyError):
        layout.load_reviews("ICLR2024", "p1", "no_such_system")


def test_load_reviews_malformed_file_names_file_and_field(root: Path) -> None:
    path = root / "ICLR_2024" / "cyclereview" / "p1.json"
    path.write_text(json.dumps({"generated_review": {"content": 7}}), encoding="utf-8")
    with pytest.raises(DataError) as info:
        EvalLayout(root).load_reviews("ICLR2024", "p1", "cyclereview")
    assert info.value.path == str(path) and info.value.field == "generated_review.content"


def test_paper_meta_hand_computed(root: Path) -> None:
    meta = EvalLayout(root).paper_meta("ICLR2024", "p1")
    # ratings "6: …", "3: …" (review without text still rated), "8: …" → mean 17/3
    assert meta["avg_rating"] == pytest.approx(17 / 3)
    # normalised on 1..10: (5/9 + 2/9 + 7/9) / 3 = 14/27
    assert meta["avg_rating_norm"] == pytest.approx(14 / 27)
    assert meta["accepted"] is True and meta["decision_kind"] == "accept-poster"
    icml = EvalLayout(root).paper_meta("ICML2025", "m1")
    assert icml["avg_rating"] == 4.0 and icml["avg_rating_norm"] == pytest.approx(0.75)


def test_find_data_root_order(tmp_path: Path) -> None:
    S.write_layout(tmp_path / "a" / "Data" / "input", {"ICLR2024": ["p"]})
    assert find_data_root(tmp_path / "a") == tmp_path / "a" / "Data" / "input"
    S.write_layout(tmp_path / "b" / "input", {"ICLR2024": ["p"]})
    assert find_data_root(tmp_path / "b") == tmp_path / "b" / "input"
    S.write_layout(tmp_path / "c", {"ICLR2024": ["p"]})
    assert find_data_root(tmp_path / "c") == tmp_path / "c"
    S.write_layout(tmp_path / "d" / "deep" / "x" / "input", {"ICLR2024": ["p"]})
    assert find_data_root(tmp_path / "d") == tmp_path / "d" / "deep" / "x" / "input"
    # a candidate with all five venues beats an earlier partial one
    S.write_layout(tmp_path / "e", {"ICLR2024": ["p"]})
    full = {v: ["p"] for v in ("ICLR2024", "ICLR2025", "ICLR2026", "ICML2025", "NeurIPS2025")}
    S.write_layout(tmp_path / "e" / "Data" / "input", full)
    assert find_data_root(tmp_path / "e") == tmp_path / "e" / "Data" / "input"
    with pytest.raises(DataError, match="no venue folder"):
        find_data_root(tmp_path / "empty_dir_missing")


def test_guess_title_abstract_spaced_capitals() -> None:
    title, abstract = guess_title_abstract(
        "U NDERSTANDING HTML\n\nA BSTRACT\n\n Large models do X.\n\n1 I NTRODUCTION\nBody"
    )
    assert title == "U NDERSTANDING HTML"
    assert abstract == "Large models do X."


def test_demo_loads_every_paper_and_review() -> None:
    layout = EvalLayout(demo_root())
    assert layout.venues() == ["ICLR2024"]
    ids = layout.paper_ids("ICLR2024")
    assert len(ids) == 21 and "0A5o6dCKeK" in ids
    systems = layout.systems("ICLR2024")
    assert systems == ["human", "claude_opus", "gemini_pro_1.5", "gpt4"]
    total = 0
    for pid in ids:
        paper = layout.load_paper("ICLR2024", pid)
        assert paper.full_text.strip() and paper.title
        assert paper.decision.kind != DecisionKind.UNKNOWN
        assert layout.load_reviews("ICLR2024", pid, "human"), pid  # every paper has humans
        reviews = [r for s in systems for r in layout.load_reviews("ICLR2024", pid, s)]
        assert reviews, pid  # every paper has at least one review
        for r in reviews:
            assert r.text.strip()
            raw = r.extra.get("raw_text", "")
            assert '"reliability"' not in raw and '"error_type"' not in raw  # labels kept out
        total += len(reviews)
    assert total == 4 + 20 * (1 + 3)  # NExT-GPT's 4 humans; 1 human + 3 LLMs per RevUtil paper
    assert layout.skipped == []

"""Every dataset is a source: detection by shape, streaming items, local problems, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from data_shapes import corpus_row, write_corpus, zip_folder

from prism_review.data.export import export_layout
from prism_review.data.layout import EvalLayout
from prism_review.data.sources import open_source, read_sample
from prism_review.guards.errors import DataError


def _ids(source: Any, **kw: Any) -> list[tuple[str, str]]:
    return [(it.venue, it.paper_id) for it in source.items(**kw)]


def test_detects_each_shape(corpus_parquet: Path, venue_dir: Path, tmp_path: Path) -> None:
    from prism_review.data.layout import demo_root

    assert open_source(corpus_parquet).kind == "corpus"
    assert open_source(corpus_parquet.parent).kind == "corpus"  # a folder holding papers.parquet
    assert open_source(venue_dir).kind == "venue-folders"
    assert open_source(venue_dir.parent).kind == "venue-folders"  # a folder of venue folders
    z = zip_folder(venue_dir, tmp_path / "zips" / "ICLR_2024.zip")
    assert open_source(z).kind == "venue-folders"
    assert open_source(demo_root()).kind == "layout"


def test_unknown_shapes_say_what_was_expected(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="expected a PRISM evaluation layout"):
        open_source(tmp_path / "empty")
    with pytest.raises(DataError, match="not found"):
        open_source(tmp_path / "nope.parquet")
    byo = tmp_path / "reviews.jsonl"
    byo.write_text(json.dumps({"paper_id": "x", "text": "A review."}) + "\n")
    with pytest.raises(DataError, match="reviews.jsonl beside papers"):
        open_source(byo)


def test_corpus_items_stream_papers_with_human_reviews(corpus_parquet: Path) -> None:
    src = open_source(corpus_parquet)
    assert src.venues() == ["ICLR2024", "ICLR2025", "ICML2025", "NeurIPS2025"]
    items = list(src.items())
    assert [it.paper_id for it in items] == ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]
    first = items[0]
    assert first.paper is not None and first.paper.full_text.strip()
    assert [r.reviewer_id for r in first.reviews["human"]] == ["Human_1", "Human_2"]
    assert first.meta["accepted"] is True and first.meta["n_human_ratings"] == 2
    assert first.meta["avg_rating"] == pytest.approx(4.5)


def test_limit_venue_and_sample_filters(corpus_parquet: Path) -> None:
    src = open_source(corpus_parquet)
    assert _ids(src, venues=["ICLR2025"]) == [("ICLR2025", "p4"), ("ICLR2025", "p5")]
    assert _ids(src, limit=1) == [
        ("ICLR2024", "p1"), ("ICLR2025", "p4"), ("NeurIPS2025", "p6"), ("ICML2025", "p7"),
    ]  # fmt: skip
    assert _ids(src, sample={"ICLR2024": ["p3", "p2"]}) == [("ICLR2024", "p2"), ("ICLR2024", "p3")]


def test_bad_rows_are_local_counted_skips(tmp_path: Path) -> None:
    rows = [
        corpus_row("ok1", "ICLR_2024", "Reject"),
        corpus_row("badjson", "ICLR_2024", "Reject", reviews_json="[{not json"),
        corpus_row("", "ICLR_2024", "Reject"),
        corpus_row("notext", "ICLR_2024", "Reject", full_text="", grobid_fulltext=""),
        corpus_row("ok1", "ICLR_2024", "Reject"),  # duplicate id
        corpus_row("ok2", "ICLR_2025", "Reject"),
    ]
    src = open_source(write_corpus(tmp_path / "papers.parquet", rows))
    items = list(src.items())
    readable = [it.paper_id for it in items if it.paper is not None]
    assert readable == ["ok1", "badjson", "ok2"]  # the other venue and papers are untouched
    assert items[1].reviews["human"] == []
    no_text = [it for it in items if it.paper is None]
    assert [it.paper_id for it in no_text] == ["notext"]
    assert "paper text is empty" in str(no_text[0].errors[0][1])
    problems = [str(p) for p in src.problems()]
    assert any("badjson" in p and "reviews_json" in p and "invalid JSON" in p for p in problems)
    assert any("paper_id" in p and "non-empty" in p for p in problems)
    assert any("[ok1]" in p and "duplicate paper id" in p for p in problems)
    assert len(problems) == 3


def test_read_sample_manifest_and_txt(tmp_path: Path) -> None:
    from prism_review.data.sampling import SampleManifest, VenueSample, write_manifest

    m = SampleManifest(seed=1, allocation="proportional", classes=["reject"], source="x")
    m.venues["ICLR2024"] = VenueSample(requested=2, population={}, allocated={}, paper_ids=["b", "a"])
    written = write_manifest(m, tmp_path / "m")
    assert read_sample(tmp_path / "m") == {"ICLR2024": ["b", "a"]}
    assert read_sample(written[1]) == {"ICLR2024": ["b", "a"]}
    (tmp_path / "bad.json").write_text('{"venues": {"ICLR2024": {"paper_ids": [1]}}}')
    with pytest.raises(DataError, match="paper_ids"):
        read_sample(tmp_path / "bad.json")


def test_export_layout_round_trips_the_reviews(corpus_parquet: Path, tmp_path: Path) -> None:
    src = open_source(corpus_parquet)
    out = tmp_path / "layout"
    res = export_layout(src, out, sample={"ICLR2024": ["p2", "p1"]})
    assert res.papers == {"ICLR2024": 2} and res.reviews == 4 and not res.skipped
    layout = EvalLayout(out)
    assert layout.paper_ids("ICLR2024") == ["p1", "p2"]
    assert (out / "ICLR2024" / "paper_ids_2_iclr2024.txt").read_text() == "p2\np1\n"
    direct = {it.paper_id: it for it in open_source(corpus_parquet).items(venues=["ICLR2024"])}
    for pid in ("p1", "p2"):
        want = direct[pid].reviews["human"]
        got = layout.load_reviews("ICLR2024", pid, "human")
        assert [(r.reviewer_id, r.sections, r.scores) for r in got] == [
            (r.reviewer_id, r.sections, r.scores) for r in want
        ]
        assert layout.load_paper("ICLR2024", pid).full_text == direct[pid].paper.full_text
        assert layout.paper_meta("ICLR2024", pid)["accepted"] == direct[pid].meta["accepted"]


def test_venue_folder_and_zip_give_the_same_items(venue_dir: Path, tmp_path: Path) -> None:
    z = zip_folder(venue_dir, tmp_path / "zips" / "ICLR_2024.zip")
    a = [(it.paper_id, [r.sections for r in it.reviews["human"]]) for it in open_source(venue_dir).items()]
    b = [(it.paper_id, [r.sections for r in it.reviews["human"]]) for it in open_source(z).items()]
    assert a == b and [pid for pid, _ in a] == ["a1", "a2", "a3"]


def test_proreviewer_shapes_are_detected_and_streamed(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from test_proreviewer import pr_row

    (tmp_path / "pr" / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([pr_row("a"), pr_row("b")]),
                   tmp_path / "pr" / "data" / "train-00000-of-00001.parquet")
    pq.write_table(pa.Table.from_pylist([pr_row("c", 2026)]),
                   tmp_path / "pr" / "data" / "test-00000-of-00001.parquet")
    for path in (tmp_path / "pr", tmp_path / "pr" / "data" / "train-00000-of-00001.parquet"):
        assert open_source(path).kind == "proreviewer"
    src = open_source(tmp_path / "pr")
    assert src.venues() == ["ICLR2025", "ICLR2026"]
    items = list(src.items(venues=["ICLR2025"]))
    assert [it.paper_id for it in items] == ["a", "b"]
    assert [r.reviewer_id for r in items[0].reviews["human"]] == ["Human_1", "Human_2"]
    assert items[0].meta["avg_rating"] == pytest.approx(4.5)  # the initial ratings 6 and 3
    rows = tmp_path / "pr.jsonl"
    rows.write_text(json.dumps(pr_row("j")) + "\n")
    assert open_source(rows).kind == "proreviewer"


def test_proreviewer_jsonl_problems_are_counted_once(tmp_path: Path) -> None:
    """Listing the venues of a split-less JSONL reads its rows; their problems count once."""
    from test_proreviewer import pr_row

    rows = tmp_path / "pr.jsonl"
    rows.write_text(json.dumps(pr_row("j")) + "\n" + json.dumps(pr_row("nv", metadata={})) + "\n")
    src = open_source(rows)
    assert src.venues() == ["ICLR2025"]
    assert [it.paper_id for it in src.items()] == ["j"]
    assert len(src.problems()) == 1


def test_proreviewer_jsonl_is_detected_by_its_first_line_split_on_newline_only(tmp_path: Path) -> None:
    """A carriage return is JSON whitespace: detection reads the first record as the reader
    does (split on "\\n" only), not as a text-mode line, which a "\\r" would cut."""
    from test_proreviewer import pr_row

    rows = tmp_path / "pr.jsonl"
    rows.write_bytes(json.dumps(pr_row("j"), indent=1).replace("\n", "\r").encode() + b"\n")
    src = open_source(rows)
    assert src.kind == "proreviewer"
    assert [it.paper_id for it in src.items()] == ["j"]

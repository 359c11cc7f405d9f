"""ProReviewer: parquet, save_to_disk arrow folders and JSONL; initial ratings; bad rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prism_review.data.proreviewer import ProReviewerReader
from prism_review.guards.errors import DataError


def pr_row(pid: str, year: int = 2025, **over: Any) -> dict[str, Any]:
    """A row in the dataset card's shape (datasets.md §2)."""
    row: dict[str, Any] = {
        "paper_id": pid,
        "arxiv_id": "2410.00001",
        "title": f"Paper {pid}",
        "markdown": {
            "content": "# Title\n\nBody text.",
            "metadata": {"authors": "A. B", "title": "T", "total_chars": 20, "total_lines": 3, "updated_at": "x"},
        },
        "reviews": [
            {"id": "r1", "initial_rating": 6, "confidence": 4, "soundness": 3, "contribution": 2, "presentation": 3,
             "summary": "Sum.", "strengths": "Good.", "weaknesses": "Weak.", "questions": "Why?"},
            {"id": "r2", "initial_rating": 3, "confidence": 2, "soundness": 2, "contribution": 2, "presentation": 1,
             "summary": "Sum2.", "strengths": "", "weaknesses": "Bad.", "questions": ""},
        ],
        "scores": {"rating": "6;3", "rating_avg": 4.5, "confidence": "4;2", "confidence_avg": 3.0,
                   "soundness": "3;2", "soundness_avg": 2.5, "contribution": "2;2", "contribution_avg": 2.0,
                   "presentation": "3;1", "presentation_avg": 2.0},
        "metadata": {"primary_area": "x", "track": "main", "venue": f"ICLR {year} Poster",
                     "venueid": f"ICLR.cc/{year}/Conference", "processed_at": "2025-01-01"},
        "meta_review": {"id": "m", "metareview": "Accept it.", "additional_comments": ""},
        "decision": {"decision": "Accept (Poster)"},
    }  # fmt: skip
    row.update(over)
    return row


def _check_item(item: Any, split: str, venue: str) -> None:
    assert item.split == split and item.paper.venue == venue
    assert item.paper.full_text.startswith("# Title")
    assert item.paper.decision.accepted is True and item.paper.meta_review == "Accept it."
    assert [r.reviewer_id for r in item.reviews] == ["Human_1", "Human_2"]
    assert item.initial_ratings == [6.0, 3.0] and item.initial_rating_avg == 4.5
    assert item.reviews[0].section("weaknesses") == "Weak."
    assert item.reviews[0].extra["review_id"] == "r1"


def test_parquet_folder_with_splits(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(
        pa.Table.from_pylist([pr_row("a"), pr_row("b")]),
        tmp_path / "data" / "train-00000-of-00001.parquet",
    )
    pq.write_table(
        pa.Table.from_pylist([pr_row("c", 2026)]), tmp_path / "data" / "test-00000-of-00001.parquet"
    )
    reader = ProReviewerReader(tmp_path)
    items = list(reader)
    assert reader.splits() == ["test", "train"]
    assert [i.paper.paper_id for i in items] == ["c", "a", "b"]
    _check_item(items[1], "train", "ICLR2025")
    _check_item(items[0], "test", "ICLR2026")
    # ICLR 2025 rating 1..10: (6-1)/9; ICLR 2026 rating 0..10: 6/10
    assert items[1].reviews[0].scores["Rating"] == pytest.approx(5 / 9)
    assert items[0].reviews[0].scores["Rating"] == pytest.approx(0.6)
    assert [i.paper.paper_id for i in ProReviewerReader(tmp_path, split="test")] == ["c"]


def test_save_to_disk_folder(tmp_path: Path) -> None:
    root = tmp_path / "proreviewer"
    for split, rows in (("train", [pr_row("a")]), ("test", [pr_row("c", 2026)])):
        d = root / split
        d.mkdir(parents=True)
        table = pa.Table.from_pylist(rows)
        with (
            pa.OSFile(str(d / "data-00000-of-00001.arrow"), "wb") as sink,
            pa.ipc.new_stream(sink, table.schema) as w,
        ):
            w.write_table(table)
        (d / "state.json").write_text(
            json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]})
        )
    (root / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    items = {i.paper.paper_id: i for i in ProReviewerReader(root)}
    _check_item(items["a"], "train", "ICLR2025")
    _check_item(items["c"], "test", "ICLR2026")


def test_jsonl_with_bad_rows(tmp_path: Path) -> None:
    bad_review = pr_row(
        "r", reviews=[{"summary": "ok", "initial_rating": "high"}, "text", {"summary": ""}]
    )
    no_venue = pr_row("nv", metadata={})
    rows = [
        pr_row("a"),
        bad_review,
        pr_row(
            "",
        ),
        no_venue,
        pr_row("wt", reviews={"a": 1}),
    ]
    path = tmp_path / "train.jsonl"
    path.write_text(
        "\n".join(json.dumps(r) for r in rows) + '\n{"paper_id": "cut\n', encoding="utf-8"
    )
    reader = ProReviewerReader(path)
    items = {i.paper.paper_id: i for i in reader}
    assert set(items) == {"a", "r", "nv"}  # no metadata: venue from the file's split (train)
    assert items["nv"].paper.venue == "ICLR2025" and items["r"].reviews == []
    fields = [(s.record, s.field) for s in reader.skips.skips]
    assert fields == [
        ("r", "reviews[0].initial_rating"),
        ("r", "reviews[1]"),
        ("r", "reviews[2]"),
        ("line 3", "paper_id"),
        ("wt", "reviews"),
        ("line 6", None),
    ]
    with pytest.raises(DataError) as exc:
        list(ProReviewerReader(path, strict=True))
    assert exc.value.field == "reviews[0].initial_rating"


def test_missing_inputs(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        ProReviewerReader(tmp_path / "nope")
    with pytest.raises(DataError, match="no parquet"):
        ProReviewerReader(tmp_path)
    bad = tmp_path / "test.parquet"
    bad.write_bytes(b"garbage")
    with pytest.raises(DataError, match="not a readable parquet"):
        list(ProReviewerReader(bad))
    no_split = tmp_path / "x.jsonl"
    no_split.write_text(json.dumps(pr_row("z", metadata={})) + "\n")
    reader = ProReviewerReader(no_split)
    assert list(reader) == [] and reader.skips.skips[0].field == "metadata.venueid"

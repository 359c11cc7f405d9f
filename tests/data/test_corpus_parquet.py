"""The streaming papers.parquet reader: projection, filters, review conversion, bad cells."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from data_shapes import corpus_row, write_corpus

from prism_review.data.corpus import METADATA_COLUMNS, CorpusReader, decision_kinds
from prism_review.guards.errors import DataError
from prism_review.records import DecisionKind


def test_full_scan_yields_papers_and_human_reviews(corpus_parquet: Path) -> None:
    reader = CorpusReader(corpus_parquet, batch_size=2)
    recs = list(reader)
    assert [r.paper.paper_id for r in recs] == ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]
    first = recs[0]
    assert first.paper.venue == "ICLR2024"
    assert first.paper.decision.kind == DecisionKind.ACCEPT_ORAL
    assert first.paper.decision.raw == "Accept (oral)"
    assert first.paper.title == "Title of p1"
    assert first.paper.full_text.startswith("## Introduction")  # GROBID text preferred
    assert first.paper.keywords == ["multimodal", "LLM"]
    assert [r.reviewer_id for r in first.reviews] == ["Human_1", "Human_2"]
    rev = first.reviews[0]
    assert rev.system == "human"
    assert [s.name for s in rev.sections] == ["Summary", "Strengths", "Weaknesses", "Questions"]
    assert rev.raw_scores["Rating"] == "6: marginally above the acceptance threshold"
    # ICLR 2024 rating 1..10: (6-1)/9; soundness 1..4: (3-1)/3; confidence 1..5: (4-1)/4
    assert rev.scores["Rating"] == pytest.approx(5 / 9)
    assert rev.scores["Soundness"] == pytest.approx(2 / 3)
    assert rev.scores["Confidence"] == pytest.approx(0.75)
    assert first.reviews[1].scores["Rating"] == pytest.approx(2 / 9)
    assert reader.skips.summary() == "no problems"
    assert reader.rows_scanned == 7
    assert recs[0].paper.bibliography[0].year == 2023


def test_filters_by_venue_and_decision(corpus_parquet: Path) -> None:
    got = [r.paper.paper_id for r in CorpusReader(corpus_parquet, venues=["iclr-2024"])]
    assert got == ["p1", "p2", "p3"]
    got = [r.paper.paper_id for r in CorpusReader(corpus_parquet, decisions=["accept"])]
    assert got == ["p1", "p4", "p6", "p7"]
    reader = CorpusReader(corpus_parquet, venues=["ICLR2025"], decisions=["reject", "pending"])
    assert [r.paper.paper_id for r in reader] == ["p5"]
    # row groups of 3: group 3 (p7 only, ICML) is skipped by the venue filter without decoding
    assert reader.rows_scanned == 7


def test_metadata_only_projection_reads_no_text(corpus_parquet: Path) -> None:
    reader = CorpusReader(corpus_parquet, columns=METADATA_COLUMNS)
    rows = list(reader.iter_rows())
    assert "full_text" not in rows[0] and "reviews_json" not in rows[0]
    assert rows[0]["num_reviews"] == 2
    recs = list(CorpusReader(corpus_parquet, columns=["paper_id", "rating_avg"]))
    assert recs[0].reviews == [] and recs[0].paper.full_text == ""
    assert set(recs[0].row) == {"paper_id", "venue", "decision", "rating_avg"}


def test_unknown_decision_word_is_rejected() -> None:
    assert decision_kinds(["oral", "reject"]) == {DecisionKind.ACCEPT_ORAL, DecisionKind.REJECT}
    with pytest.raises(ValueError, match="unknown decision 'maybe'"):
        decision_kinds(["maybe"])


def test_missing_column_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"paper_id": ["x"], "venue": ["ICLR_2024"]}), path)
    with pytest.raises(DataError) as exc:
        CorpusReader(path)
    assert exc.value.field == "decision" and str(path) in str(exc.value)


def test_not_a_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "papers.parquet"
    path.write_bytes(b"PAR1 truncated garbage")
    with pytest.raises(DataError, match="not a readable parquet"):
        CorpusReader(path)


def test_malformed_cells_are_counted_skips(tmp_path: Path) -> None:
    rows = [
        corpus_row("ok", "ICLR_2025", "Reject"),
        corpus_row("trunc", "ICLR_2025", "Reject", reviews_json='[{"Summary": "cut'),
        corpus_row("wrongtype", "ICLR_2025", "Reject", reviews_json=json.dumps([{"Summary": 3}])),
        corpus_row("empty", "ICLR_2025", "Reject", reviews_json=json.dumps([{"Summary": " "}])),
        corpus_row("", "ICLR_2025", "Reject"),
        corpus_row("venue?", "ACL_2099", "Reject"),
        corpus_row("kw", "ICLR_2025", "Reject", keywords="{not json"),
        corpus_row("bib", "ICLR_2025", "Reject", bibliography_json='[{"title": 7}]'),
    ]
    path = write_corpus(tmp_path / "papers.parquet", rows)
    reader = CorpusReader(path)
    recs = {r.paper.paper_id: r for r in reader}
    assert set(recs) == {"ok", "trunc", "wrongtype", "empty", "kw", "bib"}
    assert recs["trunc"].reviews == [] and recs["wrongtype"].reviews == []
    assert recs["kw"].paper.keywords == []
    fields = reader.skips.by_field()
    assert fields["reviews_json"] == 1
    assert fields["reviews[0].Summary"] == 1
    assert fields["reviews[0]"] == 1  # no non-empty text
    assert fields["paper_id"] == 1 and fields["venue"] == 1 and fields["keywords"] == 1
    assert fields["bibliography_json[0].title"] == 1 and recs["bib"].paper.bibliography == []
    assert len(reader.skips) == 7
    assert "trunc" in str(reader.skips.skips[0]) and str(path) in str(reader.skips.skips[0])


def test_strict_mode_raises_with_file_and_field(tmp_path: Path) -> None:
    rows = [corpus_row("trunc", "ICLR_2025", "Reject", reviews_json="[{")]
    path = write_corpus(tmp_path / "papers.parquet", rows)
    with pytest.raises(DataError) as exc:
        list(CorpusReader(path, strict=True))
    assert exc.value.field == "reviews_json" and "trunc" in str(exc.value)


def test_reviews_json_as_object_with_reviews_key(tmp_path: Path) -> None:
    payload = {"reviews": [{"Summary": "s", "Overall Recommendation": "4: accept"}]}
    rows = [corpus_row("m1", "ICML_2025", "Accept (poster)", reviews_json=json.dumps(payload))]
    (rec,) = CorpusReader(write_corpus(tmp_path / "p.parquet", rows))
    # ICML scale 1..5: (4-1)/4
    assert rec.reviews[0].scores["Overall Recommendation"] == pytest.approx(0.75)
    assert rec.paper.venue == "ICML2025"


def test_row_group_size_estimate_follows_projection(corpus_parquet: Path) -> None:
    full = CorpusReader(corpus_parquet)
    meta = CorpusReader(corpus_parquet, columns=METADATA_COLUMNS)
    assert full.num_row_groups == 3 and full.num_rows == 7 and len(full.file_columns) == 31
    assert 0 < meta.max_row_group_mb() < full.max_row_group_mb()

"""Resuming a generation output whose last line was torn by a kill."""

from __future__ import annotations

import json
from pathlib import Path

from prism_review.reviewers.output import JsonlAppender, read_rows


def test_torn_multibyte_tail_is_skipped_on_resume(tmp_path: Path) -> None:
    # rows are written with ensure_ascii=False: a kill can cut a character in half
    path = tmp_path / "reviews.jsonl"
    done = json.dumps({"paper_id": "a1", "summary": "Étude"}, ensure_ascii=False).encode()
    torn = b'{"paper_id": "a2", "summary": "' + "Ü".encode()[:1]  # half of a two-byte character
    path.write_bytes(done + b"\n" + torn)
    assert read_rows(path) == [{"paper_id": "a1", "summary": "Étude"}]
    out = JsonlAppender(path)
    assert out.done == {"a1"}
    out.append({"paper_id": "a2", "summary": "Über"})
    assert [r["paper_id"] for r in read_rows(path)] == ["a1", "a2"]


def test_missing_file_has_no_rows(tmp_path: Path) -> None:
    assert read_rows(tmp_path / "none.jsonl") == []
    assert JsonlAppender(tmp_path / "none.jsonl").done == set()

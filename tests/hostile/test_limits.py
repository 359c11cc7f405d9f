"""Parsing limits: depth, line and file size, review and paper length (the cut recorded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.data.layout import EvalLayout
from prism_review.data.source_kinds import LayoutSource
from prism_review.guards import limits
from prism_review.guards.safepath import UnsafePathError, check_id, inside, unsafe_member
from prism_review.pipelines.inputs import collect_inputs

from .hostile import DEEP, layout


def test_depth_limit_is_exact() -> None:
    assert limits.loads("[" * 64 + "]" * 64) is not None
    with pytest.raises(json.JSONDecodeError, match="nested deeper than 64"):
        limits.loads("[" * 65 + "]" * 65)
    with pytest.raises(json.JSONDecodeError, match="nested deeper"):
        limits.loads(DEEP)  # a plain json.loads raises RecursionError here


def test_long_review_is_cut_and_the_cut_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_REVIEW_CHARS", 500)
    root = layout(tmp_path)
    row = {"paper_id": "p1", "reviewer_id": "long", "text": "## Weaknesses\n" + "word " * 2000}
    with (root / "ICLR2024" / "my_reviewer" / "reviews.jsonl").open("a") as fh:
        fh.write(json.dumps(row) + "\n")
    inputs = collect_inputs(LayoutSource(root), ["ICLR2024"])
    [long] = [r for r in next(p for p in inputs.items if p.paper.paper_id == "p1").reviews["my_reviewer"]
              if r.reviewer_id == "long"]
    assert sum(len(s.text) for s in long.sections) <= 500
    assert long.extra["cut_chars"] > 9000
    assert any("review long cut to 500 characters" in s["error"] for s in inputs.skips)


def test_long_paper_is_cut_and_the_cut_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_PAPER_CHARS", 1000)
    root = layout(tmp_path)
    (root / "ICLR2024" / "papers" / "p2.txt").write_text("# Title\n\n" + "text " * 1000)
    lay = EvalLayout(root)
    paper = lay.load_paper("ICLR2024", "p2")
    assert len(paper.full_text) == 1000
    assert any("paper text cut to 1,000 characters" in note for _, note in lay.skipped)


def test_file_over_the_size_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 200)
    root = layout(tmp_path)
    inputs = collect_inputs(LayoutSource(root), ["ICLR2024"])
    assert any("over the 200-byte limit" in i["error"] for i in inputs.problems)


def test_line_over_the_limit_is_a_counted_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prism_review.data.jsonl import iter_jsonl
    from prism_review.data.skips import SkipLog

    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 40)
    root = layout(tmp_path)
    lay = EvalLayout(root)
    lay.load_reviews("ICLR2024", "p1", "my_reviewer")
    assert any("-byte limit" in str(p) for p in lay.problems)
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n{"a": "' + "x" * 100 + '"}\n')
    skips = SkipLog()
    assert [obj for _, obj in iter_jsonl(path, skips)] == [{"a": 1}]
    assert "line 2" in str(skips.skips[0])


@pytest.mark.parametrize("pid", ["../x", "a/b", "/etc/passwd", "..", ".", ".hidden", "a\\b", "a\x00b", "a\nb", ""])
def test_unsafe_ids_are_refused(pid: str) -> None:
    with pytest.raises(UnsafePathError):
        check_id(pid, source="manifest")


@pytest.mark.parametrize("pid", ["abc", "2401.12345", "a..b", "OpenReview_x-Y_1"])
def test_plain_ids_pass(pid: str) -> None:
    assert check_id(pid, source="manifest") == pid


@pytest.mark.parametrize("name,bad", [("../x", True), ("a/../../x", True), ("/etc/passwd", True), ("C:/x", True),
                                      ("a\\..\\b", True), ("a\x00b", True), ("ICLR_2024/json/a..b.json", False)])
def test_archive_member_names(name: str, bad: bool) -> None:
    assert unsafe_member(name) is bad


def test_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "secret").write_text("x")
    (tmp_path / "root" / "link").symlink_to(tmp_path / "secret")
    (tmp_path / "root" / "ok").symlink_to(tmp_path / "root")
    with pytest.raises(UnsafePathError, match="outside"):
        inside(tmp_path / "root", tmp_path / "root" / "link")
    assert inside(tmp_path / "root", tmp_path / "root" / "ok")


def test_a_stream_longer_than_it_declares_is_stopped_at_the_limit() -> None:
    """read_capped's second guard: a member declaring 0 bytes is still cut off while reading."""
    import io

    from prism_review.guards.errors import DataError

    assert limits.read_capped(io.BytesIO(b"x" * 100), "z.zip!a", limit=100) == b"x" * 100
    with pytest.raises(DataError, match=r"z.zip!a: member is over the 100-byte limit"):
        limits.read_capped(io.BytesIO(b"x" * 101), "z.zip!a", declared=0, limit=100)
    with pytest.raises(DataError, match="over the 100-byte limit"):
        limits.read_capped(io.BytesIO(b""), "z.zip!a", declared=101, limit=100)

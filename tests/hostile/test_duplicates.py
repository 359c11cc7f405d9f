"""Duplicate files and symlinked twins (issue 26, kind 5, second half): a review is counted once,
and each file or row not read because it repeats one already read is a counted skip, shown."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import EvalLayout
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()


def _texts(lay: EvalLayout, pid: str, system: str) -> list[str]:
    return [r.text for r in lay.load_reviews("ICLR2024", pid, system)]


def test_a_review_file_linked_under_another_paper_id_counts_once(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    sea = root / "ICLR2024" / "sea"
    (sea / "p2.txt").unlink()
    os.symlink("p1.txt", sea / "p2.txt")  # p1's review would count for p2 too
    lay = EvalLayout(root)
    assert len(_texts(lay, "p1", "sea")) == 1
    assert _texts(lay, "p2", "sea") == []
    assert lay.skipped == [(str(sea / "p2.txt"), "not read: a link to p1.txt, the review file of "
                            "paper 'p1' (counted once)")]
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--system", "sea", "--quiet"])
    note = f"{sea / 'p2.txt'}: not read: a link to p1.txt, the review file of paper 'p1'"
    assert note in " ".join(res.output.split()), res.output
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["paper_id"] for r in rows) == ["p1"], rows
    skips = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    assert [s["kind"] for s in skips if s["path"] == str(sea / "p2.txt")] == ["skip"], skips


def test_a_second_file_of_the_same_paper_is_a_counted_note(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    tree = root / "ICLR2024" / "tree"
    first = next(tree.glob("p1*.json"))
    other = tree / ("p1.json" if first.name != "p1.json" else "p1_review.json")
    os.symlink(first.name, other)
    lay = EvalLayout(root)
    assert len(_texts(lay, "p1", "treereview")) == 1
    assert lay.skipped == [(str(other), f"not read: a link to it beside {first.name} (counted once)")]


def test_byo_twins_copies_and_repeated_rows_count_once(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    byo = root / "ICLR2024" / "my_reviewer"
    one = _texts(EvalLayout(root), "p1", "my_reviewer")
    assert len(one) == 1
    os.symlink("reviews.jsonl", byo / "twin.jsonl")
    shutil.copy(byo / "reviews.jsonl", byo / "copy.jsonl")
    lines = (byo / "reviews.jsonl").read_text().splitlines()
    (byo / "more.jsonl").write_text(lines[0] + "\n" + lines[0] + "\n")
    lay = EvalLayout(root)
    assert _texts(lay, "p1", "my_reviewer") == one  # was four reviews (llm, llm_2, ...)
    assert sorted(lay.skipped) == sorted([
        (str(byo / "copy.jsonl"), "not read: a copy of reviews.jsonl (its rows counted once)"),
        (str(byo / "twin.jsonl"), "not read: a link to reviews.jsonl (its rows counted once)"),
        (f"{byo / 'more.jsonl'}:1", "not read: the same row as reviews.jsonl line 1 (counted once)"),
        (f"{byo / 'more.jsonl'}:2", "not read: the same row as reviews.jsonl line 1 (counted once)"),
    ])


def test_data_validate_shows_the_same_counted_notes(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    sea, byo = root / "ICLR2024" / "sea", root / "ICLR2024" / "my_reviewer"
    (sea / "p2.txt").unlink()
    os.symlink("p1.txt", sea / "p2.txt")
    shutil.copy(byo / "reviews.jsonl", byo / "copy.jsonl")
    res = runner.invoke(app, ["data", "validate", "--partial", str(root)])
    said = " ".join(res.output.split())
    assert f"{sea / 'p2.txt'}: not read: a link to p1.txt, the review file of paper 'p1'" in said, said
    assert f"{byo / 'copy.jsonl'}: not read: a copy of reviews.jsonl" in said, said


def test_a_human_file_linked_under_another_id_gives_that_paper_no_decision(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    human = root / "ICLR2024" / "human_reviews"
    (human / "p2.json").unlink()
    os.symlink("p1.json", human / "p2.json")
    lay = EvalLayout(root)
    assert lay.load_reviews("ICLR2024", "p2", "human") == []
    assert lay.paper_meta("ICLR2024", "p2")["decision"] is None  # was p1's decision
    assert lay.paper_meta("ICLR2024", "p1")["decision"] is not None


def test_byo_indexing_reads_each_file_once_unless_its_size_matches_another(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The copy check hashes a file only when an earlier one has its size: every file was read
    twice (hashed, then indexed)."""
    from prism_review.systems.byo import ByoSource

    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    byo = root / "ICLR2024" / "my_reviewer"
    lines = (byo / "reviews.jsonl").read_text().splitlines()
    (byo / "other.jsonl").write_text(lines[0].replace("p1", "p2") + "\n" + lines[0] + "\n")
    opened: list[str] = []
    real = Path.open

    def counting(self: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting)
    source = ByoSource(byo, "my_reviewer")
    assert set(source.index()) >= {"p1", "p2"}
    assert sorted(opened) == ["other.jsonl", "reviews.jsonl"], opened
    assert source.skipped == [(f"{byo / 'other.jsonl'}:2",
                               "not read: the same row as reviews.jsonl line 1 (counted once)")]


def test_a_raw_venue_folder_file_linked_under_another_id_is_not_read(tmp_path: Path) -> None:
    """``json/b.json`` -> ``a.json`` gave paper b paper a's reviews and decision (the layout's
    readers refused such a twin, the raw folder's did not)."""
    from prism_review.data.sources import open_source

    folder = tmp_path / "ICLR_2024"
    (folder / "json").mkdir(parents=True)
    (folder / "txt").mkdir()
    (folder / "json" / "a.json").write_text(json.dumps(
        {"title": "T", "Decision": "Accept", "reviews": [{"summary": "A review."}]}))
    os.symlink("a.json", folder / "json" / "b.json")
    for pid in ("a", "b"):
        (folder / "txt" / f"{pid}.txt").write_text(f"Paper {pid}.")
    source = open_source(folder)
    items = list(source.items())
    assert [(i.paper_id, i.paper is not None) for i in items] == [("a", True), ("b", False)]
    assert [str(e) for _, e in items[1].errors] == [
        f"{folder / 'json' / 'b.json'}: not read: a link to a.json, another paper's file "
        "(counted once)"]

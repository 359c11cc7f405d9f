import json

import pytest

from prism_review.dimensions.base import ResultRow
from prism_review.pipelines.results import ResultsLog, ResultsLogError, read_results


def _rows(unit: str, n: int, dim: str = "depth") -> list[ResultRow]:
    return [
        ResultRow(dimension=dim, venue="ICLR2024", paper_id=unit, system="human", reviewer_id=f"Human_{i}", unit_key=unit)
        for i in range(1, n + 1)
    ]


def test_append_and_reload(tmp_path):
    log = ResultsLog(tmp_path / "results.jsonl")
    log.append_unit(_rows("u1", 2))
    log.append_unit(_rows("u2", 1))
    again = ResultsLog(tmp_path / "results.jsonl")
    assert again.is_done("depth", "u1") and again.is_done("depth", "u2")
    assert not again.is_done("flaws", "u1")
    assert [r.reviewer_id for r in again.rows()] == ["Human_1", "Human_2", "Human_1"]
    assert all(r.unit_size == 2 for r in again.rows()[:2])


def test_duplicate_unit_append_is_ignored(tmp_path):
    log = ResultsLog(tmp_path / "results.jsonl")
    log.append_unit(_rows("u1", 1))
    log.append_unit(_rows("u1", 1))
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 1


def test_torn_tail_and_partial_unit_are_dropped(tmp_path):
    path = tmp_path / "results.jsonl"
    log = ResultsLog(path)
    log.append_unit(_rows("u1", 1))
    partial = _rows("u2", 3)
    for r in partial:
        r.unit_size = 3
    # a kill after two of three rows, the second one torn mid-line
    with open(path, "a") as fh:
        fh.write(partial[0].model_dump_json() + "\n")
        fh.write(partial[1].model_dump_json()[:40])
    again = ResultsLog(path)
    assert again.is_done("depth", "u1")
    assert not again.is_done("depth", "u2")
    assert again.dropped_rows == 2
    # the file was rewritten: only complete units remain, every line valid JSON
    lines = path.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["unit_key"] == "u1"
    assert [r.unit_key for r in read_results(tmp_path)] == ["u1"]


def test_wrong_schema_version_is_refused(tmp_path):
    path = tmp_path / "results.jsonl"
    row = _rows("u1", 1)[0].model_dump()
    row["schema_version"] = 99
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(ResultsLogError, match="schema_version 99"):
        ResultsLog(path)


def test_garbage_line_is_quarantined_and_named_the_rest_resumes(tmp_path):
    path = tmp_path / "results.jsonl"
    good = [_rows("u1", 1)[0].model_dump_json(), _rows("u2", 1)[0].model_dump_json()]
    path.write_text(good[0] + "\nnot json\n" + good[1] + "\n")
    log = ResultsLog(path)
    assert log.is_done("depth", "u1") and log.is_done("depth", "u2")
    assert len(log.quarantined) == 1 and "results.jsonl: line 2" in log.quarantined[0]
    assert log.quarantine_path.read_text() == "not json\n"
    assert path.read_text() == good[0] + "\n" + good[1] + "\n"  # rewritten without it
    assert ResultsLog(path).quarantined == []  # moved once


def test_read_only_reader_names_a_damaged_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(_rows("u1", 1)[0].model_dump_json() + "\nnot json\n")
    with pytest.raises(ResultsLogError, match=r"results.jsonl: line 2"):
        read_results(path)


def test_fsync_is_grouped_and_sync_flushes_the_rest(tmp_path, monkeypatch):
    """Units are written one by one but fsynced at most once per SYNC_SECONDS (one fsync per
    unit blocked the run's thread for milliseconds per unit); sync() covers the rest."""
    import os

    from prism_review.pipelines import results as results_mod

    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(results_mod.os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    log = ResultsLog(tmp_path / "results.jsonl")
    for i in range(50):
        log.append_unit(_rows(f"u{i}", 1))
    assert len(synced) <= 1
    # every unit is in the file (written, not only buffered) before any fsync
    assert len(ResultsLog(tmp_path / "results.jsonl")) == 50
    before = len(synced)
    log.sync()
    assert len(synced) == before + 1
    log.sync()  # nothing new to sync
    assert len(synced) == before + 1

"""Shared and damaged run folders, full and read-only disks: one clear line, rc != 0, finished
work kept, and a re-run resumes."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.pipelines.results import ResultsLog, read_results
from prism_review.pipelines.runlock import RunLock
from prism_review.testing.layout_samples import write_layout

from .hostile import SECRET, layout

runner = CliRunner()


def _evaluate(data: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    args = ["evaluate", "--data", str(data), "--out", str(out), "--dimension", "constructiveness",
            "--venue", "ICLR2024", "--system", "sea", "--limit", "1", "--quiet", *extra]
    return runner.invoke(app, args)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})


def _no_traceback(res) -> None:  # type: ignore[no-untyped-def]
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output


def test_second_run_on_a_locked_folder_is_refused_naming_the_holder(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with RunLock(out):
        res = _evaluate(data, out)
    _no_traceback(res)
    assert res.exit_code == 2
    assert "in use by another run" in res.output and f"pid {os.getpid()}" in res.output
    assert not (out / "results.jsonl").exists()


def test_manifest_cut_in_half_is_a_clear_error(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text('{"tool": "prism-review", "config_ha')
    res = _evaluate(data, out)
    _no_traceback(res)
    assert res.exit_code == 2 and "manifest.json is damaged" in res.output


def test_traversal_manifest_is_skipped_counted_and_shown(tmp_path: Path) -> None:
    root = layout(tmp_path)
    (root / "ICLR2024" / "paper_ids_200_iclr2024.txt").write_text("p1\n../../../../outside/secret\n")
    out = tmp_path / "run"
    res = _evaluate(root, out)
    _no_traceback(res)
    assert res.exit_code == 1
    assert "input(s) skipped" in res.output and "not a plain file name" in res.output
    errors = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    assert any("not a plain file name" in e["error"] and e["kind"] == "input" for e in errors)
    report = (out / "report.html").read_text()
    assert "inputs skipped" in report and "not a plain file name" in report
    assert "inputs skipped" in (out / "summary.md").read_text()
    for name in ("results.jsonl", "report.html", "summary.md"):
        assert SECRET not in (out / name).read_text()
    assert not (out / "memo").exists() or all(SECRET not in p.read_text() for p in (out / "memo").rglob("*.json"))
    # a re-run reports the same inputs once, not twice
    _evaluate(root, out)
    errors2 = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    assert len([e for e in errors2 if e["kind"] == "input"]) == len([e for e in errors if e["kind"] == "input"])


def test_damaged_results_line_is_quarantined_and_the_rest_resumes(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _evaluate(data, out).exit_code == 0
    log = out / "results.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(["{not a row"] + lines) + "\n")
    res = _evaluate(data, out)
    _no_traceback(res)
    assert res.exit_code == 0, res.output
    assert "damaged line moved to results.quarantine.jsonl" in res.output
    assert (out / "results.quarantine.jsonl").read_text() == "{not a row\n"
    assert len(read_results(out)) == len(lines)
    assert json.loads((out / "manifest.json").read_text())["quarantined_lines"] == 1


def test_disk_full_mid_run_is_one_line_and_keeps_finished_units(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    real = ResultsLog.append_unit
    calls = {"n": 0}

    def full_after_one(self, rows):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
        return real(self, rows)

    monkeypatch.setattr(ResultsLog, "append_unit", full_after_one)
    res = _evaluate(data, out, "--system", "reviewer2")  # two units: the second meets a full disk
    _no_traceback(res)
    assert res.exit_code == 4, res.output
    assert res.output.count("No space left on device") == 1 and "re-run the same command" in res.output
    kept = read_results(out)
    assert len({r.unit_key for r in kept}) == 1  # the finished unit is kept
    monkeypatch.setattr(ResultsLog, "append_unit", real)
    res = _evaluate(data, out, "--system", "reviewer2")
    assert res.exit_code == 0, res.output
    assert "1 resumed" in res.output


def test_read_only_folder_is_one_line(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import prism_review.atomic as atomic

    out = tmp_path / "run"
    assert _evaluate(data, out).exit_code == 0
    before = (out / "report.html").read_text()

    def read_only(path, data):  # type: ignore[no-untyped-def]
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(atomic, "write_bytes", read_only)
    res = _evaluate(data, out)
    _no_traceback(res)
    assert res.exit_code == 4 and "Read-only file system" in res.output
    assert (out / "report.html").read_text() == before  # never truncated


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod; see the monkeypatched test above")
def test_chmod_read_only_folder(data: Path, tmp_path: Path) -> None:  # pragma: no cover - non-root only
    out = tmp_path / "run"
    out.mkdir()
    out.chmod(0o500)
    try:
        res = _evaluate(data, out)
    finally:
        out.chmod(0o700)
    _no_traceback(res)
    assert res.exit_code in (2, 4)

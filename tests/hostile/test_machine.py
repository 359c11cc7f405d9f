"""The machine's edges (issue 26, kind 8): a file-size limit (``ulimit -f``), a full disk or a
read-only folder is one clear line and exit 4, never a traceback on the terminal; a unit that
meets one stops the run instead of failing every later unit; errors.jsonl is bounded; finished
work is kept. Each command runs in a subprocess (the limit is the process's own)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import get_dimension
from prism_review.pipelines import outcomes
from prism_review.pipelines.results import read_results
from prism_review.testing.layout_samples import write_layout
from prism_review.testing.llm_server import LLMServer

runner = CliRunner()
TOO_LARGE = ("error: File too large. Finished work in the run folder is kept; free space or fix "
             "the folder's permissions, then re-run the same command to resume.")

# a read-only run folder for a process that may write anywhere (root ignores chmod): every
# opening of a file under it for writing fails as on a read-only file system
_READ_ONLY = """
import errno, os, sys
ro, _open = sys.argv.pop(1), os.open
def ro_open(path, flags, *a, **k):
    if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and os.fspath(path).startswith(ro):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
    return _open(path, flags, *a, **k)
os.open = ro_open
import builtins, io
_bopen = builtins.open
def b_open(file, mode="r", *a, **k):
    if any(c in mode for c in "wax+") and os.fspath(file).startswith(ro):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(file))
    return _bopen(file, mode, *a, **k)
builtins.open = io.open = b_open
from prism_review.cli import main
sys.argv[0] = "prism"
main()
"""


def _prism(*args: str, fsize: int | None = None, read_only: Path | None = None,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    cmd = [sys.executable, "-m", "prism_review.cli"] if read_only is None else \
        [sys.executable, "-c", _READ_ONLY, str(read_only)]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=180,
                          preexec_fn=limit, env={**os.environ, "COLUMNS": "300", **(env or {})})


@pytest.fixture
def run(tmp_path: Path) -> Path:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--quiet", "--no-report"])
    assert res.exit_code == 0, res.output
    return out


def test_report_under_a_file_size_limit_is_one_line(run: Path) -> None:
    before = (run / "results.jsonl").read_bytes()
    res = _prism("report", str(run), fsize=0)
    assert res.returncode == 4, res.stderr
    assert res.stderr.strip() == TOO_LARGE, res.stderr
    assert (run / "results.jsonl").read_bytes() == before


def test_report_on_a_read_only_folder_is_one_line(run: Path) -> None:
    res = _prism("report", str(run), read_only=run)
    assert res.returncode == 4, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Read-only file system (") and \
        f"{run}/" in lines[0] and "Traceback" not in res.stderr, res.stderr


def test_index_build_on_a_read_only_folder_is_one_line_too(tmp_path: Path) -> None:
    src = tmp_path / "docs.jsonl"
    src.write_text(json.dumps({"id": "a", "title": "Sparse adapters"}) + "\n")
    out = tmp_path / "ro"
    res = _prism("index", "build", "--out", str(out / "idx"), "--jsonl", str(src), read_only=out)
    assert res.returncode in (2, 4) and "Traceback" not in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_a_unit_meeting_the_file_size_limit_stops_the_run(tmp_path: Path) -> None:
    server = LLMServer(schema_seed=3).start()
    try:
        out = tmp_path / "run"
        res = _prism("evaluate", "--judge", f"openai-compatible/test-model@{server.base_url}",
                     "--limit", "3", "--dimension", "constructiveness", "--out", str(out),
                     "--cache-dir", str(tmp_path / "cache"), "--quiet", "--no-report",
                     fsize=20_000, env={"OPENAI_API_KEY": "x", "PRISM_RETRY_BASE": "0.01"})
    finally:
        server.stop()
    assert res.returncode == 4, res.stdout + res.stderr
    assert res.stderr.strip().splitlines()[-1] == TOO_LARGE and "Traceback" not in res.stderr
    errors = out / "errors.jsonl"
    assert not errors.exists() or "traceback" not in errors.read_text()  # was one per unit
    rows = read_results(out)  # the units finished before are kept, readable
    assert rows and all(r.status == "ok" for r in rows)


def test_errors_jsonl_holds_a_bounded_number_of_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def boom(self, unit, ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("every unit fails")

    monkeypatch.setattr(type(get_dimension("constructiveness")), "evaluate", boom)
    monkeypatch.setattr(outcomes, "MAX_FAILURE_ROWS", 3)
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--quiet", "--no-report"])
    assert "unit(s) failed" in res.output, res.output
    rows = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    failures = [r for r in rows if "unit_key" in r]
    notes = [r["error"] for r in rows if r.get("kind") == "note"]
    n_units = int(res.output.split(" unit(s) failed")[0].split()[-1])
    assert len(failures) == 3 and n_units > 3
    assert notes == [f"{n_units - 3} more unit failure(s) not written here (at most 3 per run); "
                     "the run's totals count them all"]


def test_errors_jsonl_stays_bounded_over_many_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # before: each run appended its failures to those of every earlier run of the folder
    from prism_review.pipelines import inputs

    async def boom(self, unit, ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("every unit fails")

    monkeypatch.setattr(type(get_dimension("constructiveness")), "evaluate", boom)
    monkeypatch.setattr(outcomes, "MAX_FAILURE_ROWS", 3)
    monkeypatch.setattr(inputs, "MAX_KEPT_LINES", 5)
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    out = tmp_path / "run"
    for _ in range(4):  # each run retries the failed units and fails them again
        res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out),
                                  "--dimension", "constructiveness", "--quiet", "--no-report"])
        assert "unit(s) failed" in res.output, res.output
    rows = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    kept = [r for r in rows if r.get("kind") not in {"input", "skip"}]
    assert len(kept) == 6, rows  # the newest 5 and one note saying what was dropped (was 16)
    assert "older line(s) of earlier runs' unit failures dropped" in kept[0]["error"]
    assert kept[-1]["kind"] == "note" and "at most 3 per run" in kept[-1]["error"]  # the last run's

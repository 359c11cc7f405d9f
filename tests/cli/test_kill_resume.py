"""Kill ``prism evaluate`` at arbitrary moments, re-run: the final results equal an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from prism_review.pipelines.results import read_results

ARGS = ["--dimension", "depth", "--dimension", "novelty", "--quiet", "--no-report", "--concurrency", "1"]


def _cmd(out: Path) -> list[str]:
    return [sys.executable, "-m", "prism_review.cli", "evaluate", "--out", str(out), *ARGS]


def _essence(out: Path) -> list[tuple]:
    rows = read_results(out)
    return sorted(
        (r.dimension, r.unit_key, r.reviewer_id, r.status, repr(sorted(r.metrics.items())), repr(r.extracted))
        for r in rows
    )


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_killed_runs_resume_to_identical_results(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    ref = tmp_path / "ref"
    subprocess.run(_cmd(ref), check=True, env=env, capture_output=True, timeout=300)
    expected = _essence(ref)
    total = len(expected)
    assert total > 40

    out = tmp_path / "killed"
    kills = 0
    for target in (total // 5, total // 2, (4 * total) // 5):
        proc = subprocess.Popen(_cmd(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while proc.poll() is None and _lines(out / "results.jsonl") < target and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=30)
    assert kills >= 1  # at least one run really was interrupted
    subprocess.run(_cmd(out), check=True, env=env, capture_output=True, timeout=300)
    got = _essence(out)
    assert len(got) == len(set(got)) == total  # no duplicates, nothing lost
    assert got == expected

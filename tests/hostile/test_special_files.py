"""Only regular files are read (issue 26, kind 5): a named pipe never blocks a command (opening
one waits for a writer forever) and is never dropped unsaid; it is refused by name. Each command
runs in a subprocess with a timeout, so a regression shows as a failure, not a hung suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from prism_review.testing.layout_samples import write_layout

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
REFUSED = "not a regular file (a named pipe; refused)"


def _prism(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "prism_review.cli", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})


def test_data_info_and_agreement_refuse_a_named_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "labels.jsonl"
    os.mkfifo(fifo)
    res = _prism("data", "info", str(fifo))
    assert res.returncode == 1 and REFUSED in res.stdout + res.stderr, res.stdout + res.stderr
    res = _prism("agreement", "--dataset", "revutil", "--file", str(fifo))
    assert res.returncode != 0 and f"{fifo}: {REFUSED}" in " ".join((res.stdout + res.stderr).split())


def test_a_review_file_that_is_a_named_pipe_is_named_by_evaluate_and_validate(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    review = root / "ICLR2024" / "sea" / "p1.txt"
    review.unlink()
    os.mkfifo(review)
    res = _prism("data", "validate", "--partial", str(root))
    assert res.returncode == 1 and f"{review}: {REFUSED}" in res.stdout + res.stderr
    res = _prism("evaluate", "--data", str(root), "--out", str(tmp_path / "run"), "--dimension",
                 "constructiveness", "--system", "sea", "--quiet")
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"{review}: {REFUSED}" in " ".join((res.stdout + res.stderr).split())

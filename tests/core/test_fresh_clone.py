"""A clone without the shared folder beside it (a researcher's fresh machine): the README's test
command must still run. Tests that need the shared reference vectors or labels skip; none may
fail to be collected (a module reading a shared file at import time stops the whole run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_test_module_collects_without_the_shared_folder(tmp_path):
    env = {**os.environ, "PRISM_SHARED_DIR": str(tmp_path / "no-shared-here")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "error" not in proc.stdout.splitlines()[-1].lower(), proc.stdout[-4000:]

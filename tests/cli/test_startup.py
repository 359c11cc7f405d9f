"""``prism`` imports every command module at start-up; the heavy libraries must wait for use."""

from __future__ import annotations

import json
import subprocess
import sys


def test_cli_import_loads_no_numpy_or_models() -> None:
    code = ("import json, sys, prism_review.cli; "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} | "
            "{m for m in sys.modules if m.startswith('prism_review.')})))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                           text=True).stdout))
    assert not loaded & {"numpy", "pydantic", "openai", "onnxruntime", "scipy"}
    assert not {m for m in loaded if m.startswith("prism_review.") and not m.startswith("prism_review.cli")}

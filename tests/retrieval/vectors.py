"""Load the shared reference vectors (skips cleanly when the spec folder is absent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.testing.shared import SHARED

VECTORS = Path(f"{SHARED}/spec/vectors")


def cases(filename: str, function_suffix: str) -> list[Any]:
    path = VECTORS / filename
    if not path.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason="vectors not available"))]
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        pytest.param(c, id=c["name"])
        for c in data["cases"]
        if c["function"].split("::")[1].endswith(function_suffix)
    ]

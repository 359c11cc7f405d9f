"""Load the shared reference vectors and compare numbers with the README's tolerances."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from prism_review.testing.shared import SHARED

VECTORS = Path(os.environ.get("PRISM_VECTORS", f"{SHARED}/spec/vectors"))


def cases(filename: str, function_suffix: str | None = None) -> list[Any]:
    """pytest params for the cases of one vector file (skipped when the file is absent)."""
    path = VECTORS / filename
    if not path.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{path} not available"))]
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for c in data["cases"]:
        if function_suffix and not c["function"].endswith(function_suffix):
            continue
        out.append(pytest.param(c, id=c["name"]))
    return out


def close(a: Any, b: Any, tol: float = 1e-4 + 1e-9, path: str = "") -> None:
    """Assert ``a`` equals ``b`` structurally, numbers within ``tol``, lists in order."""
    if isinstance(b, bool) or b is None or isinstance(b, str):
        assert a == b, f"{path}: {a!r} != {b!r}"
    elif isinstance(b, int | float):
        assert isinstance(a, int | float) and not isinstance(a, bool), f"{path}: {a!r} vs {b!r}"
        assert math.isclose(a, b, abs_tol=tol), f"{path}: {a!r} != {b!r}"
    elif isinstance(b, dict):
        assert isinstance(a, dict), f"{path}: {a!r} is not a dict"
        assert set(a) == set(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in b:
            close(a[k], b[k], tol, f"{path}.{k}")
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            close(x, y, tol, f"{path}[{i}]")
    else:  # pragma: no cover
        raise AssertionError(f"{path}: unexpected type {type(b)}")

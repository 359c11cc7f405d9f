"""pytest parameters from the shared reference vectors (``<shared>/spec/vectors/*.json``).

A missing vector file skips its tests (a clone without the shared folder); a file that is present
but has no case for the requested function is an error, so a renamed function cannot silently
leave a test with an empty parameter set.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from prism_review.testing.shared import VECTORS


def vector_cases(filename: str, function_suffix: str | None = None) -> list[Any]:
    """One ``pytest.param(case, id=name)`` per case (only those whose function, after ``::``,
    ends with ``function_suffix`` when it is given)."""
    path = VECTORS / filename
    if not path.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{path} not available"))]
    data = json.loads(path.read_text(encoding="utf-8"))
    out = [
        pytest.param(c, id=c["name"])
        for c in data["cases"]
        if function_suffix is None or c["function"].split("::")[-1].endswith(function_suffix)
    ]
    if not out:
        raise LookupError(f"{path}: no case for a function ending in {function_suffix!r}")
    return out


def close(a: Any, b: Any, tol: float = 1e-4 + 1e-9, path: str = "") -> None:
    """Assert ``a`` equals the expected ``b`` structurally: same dict keys, lists in order and of
    the same length, numbers within ``tol`` (the vectors README's tolerance by default)."""
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
    else:
        raise AssertionError(f"{path}: unexpected type {type(b)}")

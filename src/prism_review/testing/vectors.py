"""pytest parameters from the shared reference vectors (``<shared>/spec/vectors/*.json``).

A missing vector file skips its tests (a clone without the shared folder); a file that is present
but has no case for the requested function is an error, so a renamed function cannot silently
leave a test with an empty parameter set.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from prism_review.testing.shared import VECTORS


def vector_cases(filename: str, function_suffix: str) -> list[Any]:
    """One ``pytest.param(case, id=name)`` per case whose function (after ``::``) ends with
    ``function_suffix``."""
    path = VECTORS / filename
    if not path.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{path} not available"))]
    data = json.loads(path.read_text(encoding="utf-8"))
    out = [
        pytest.param(c, id=c["name"])
        for c in data["cases"]
        if c["function"].split("::")[-1].endswith(function_suffix)
    ]
    if not out:
        raise LookupError(f"{path}: no case for a function ending in {function_suffix!r}")
    return out

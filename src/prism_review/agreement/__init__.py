"""Agreement of a judge with human labels: ``prism agreement --dataset NAME --file PATH``.

Each dataset module registers one async measure function with :func:`register_dataset`. The
function reads the human-labelled file (formats in ``shared/data/README.md``), runs the judge's
steps on it and returns one flat dict of metrics (e.g. ``disapere.role.macro_f1``) plus counts
under ``n.*``. The same code path serves the offline judge and any LLM judge.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from prism_review.judge.base import Judge

MeasureFn = Callable[[Path, Judge, int | None], Awaitable[dict[str, float | int | None]]]

_DATASETS: dict[str, MeasureFn] = {}
_BUILTIN = {
    "disapere": "disapere",
    "substanreview": "substanreview",
    "revutil": "revutil",
    "revutil-llm-reviews": "revutil_llm_reviews",
    "perturbation-verifier": "perturbation_verifier",
}


def register_dataset(name: str) -> Callable[[MeasureFn], MeasureFn]:
    """Register ``fn(path, judge, limit) -> metrics`` under ``name``; duplicates raise."""

    def deco(fn: MeasureFn) -> MeasureFn:
        if name in _DATASETS and _DATASETS[name] is not fn:
            raise ValueError(f"agreement dataset {name!r} is already registered")
        _DATASETS[name] = fn
        return fn

    return deco


def get_dataset(name: str) -> MeasureFn:
    if name not in _DATASETS and name in _BUILTIN:
        importlib.import_module(f"prism_review.agreement.{_BUILTIN[name]}")
    if name not in _DATASETS:
        raise KeyError(f"unknown agreement dataset {name!r}; known: {', '.join(dataset_names())}")
    return _DATASETS[name]


def dataset_names() -> list[str]:
    return sorted(set(_BUILTIN) | set(_DATASETS))


def read_jsonl(path: Path) -> list[dict]:
    """Read JSON Lines splitting on "\\n" only (texts may hold U+2028/U+2029).

    Accepts bare NaN (as Python's json does). A malformed line raises ``ValueError`` naming
    the file and line number.
    """
    import json

    rows = []
    with open(path, encoding="utf-8", newline="") as fh:
        data = fh.read()
    for i, line in enumerate(data.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: line {i} is not valid JSON ({exc.msg})") from exc
    return rows

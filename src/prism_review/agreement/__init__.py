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

from prism_review.data.jsonl import read_jsonl as read_jsonl  # its home; kept importable here
from prism_review.judge.base import Judge

MeasureFn = Callable[[Path, Judge, int | None], Awaitable[dict[str, float | int | None]]]

_DATASETS: dict[str, MeasureFn] = {}
_BUILTIN = {
    "disapere": "disapere",
    "disapere-novelty": "disapere_novelty",
    "substanreview": "substanreview",
    "revutil": "revutil",
    "revutil-llm-reviews": "revutil_llm_reviews",
    "perturbation-verifier": "perturbation_verifier",
}


#: each built-in dataset's standard file, relative to the shared data folder (``shared/data``):
#: what ``prism agreement --dataset all`` measures
DEFAULT_FILES: dict[str, str] = {
    "disapere": "labels/disapere/dev.jsonl",
    "disapere-novelty": "labels/disapere/dev.jsonl",
    "substanreview": "labels/substanreview/train.jsonl",
    "revutil": "labels/revutil/dev.jsonl",
    "revutil-llm-reviews": "demo-sources/revutil-llm-reviews/llm_reviews.jsonl",
    "perturbation-verifier": "perturbation/verifier_gold_dev.jsonl",
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
        from prism_review.names import UnknownNameError

        valid = ", ".join(UnknownNameError("dataset", name, [*dataset_names(), "all"]).valid)
        raise KeyError(f"unknown agreement dataset {name!r}; valid datasets (closest first): {valid}")
    return _DATASETS[name]


def dataset_names() -> list[str]:
    return sorted(set(_BUILTIN) | set(_DATASETS))



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


#: sha256 of the human-labelled files the shipped offline judge was trained or tuned on. On
#: these files ``prism agreement --judge offline`` measures fit, not generalisation, and says so.
OFFLINE_TRAINED_ON: dict[str, str] = {
    "f5e4eee25d6fb88386e4c21d87b6c015d3167de56396578b6e3fd2dc9b75df37": (
        "DISAPERE train: the depth and flaw classifiers and the novelty cues were fitted on it"
    ),
    "333f5fb01d8e8ba449822a479340034689c474d1a3d4f21184dd777f03a51b05": (
        "SubstanReview train: the depth model was fitted on 80% of it (the id % 5 == 0 reviews "
        "are held out: python -m prism_review.training.depth.train --write-substan-dev FILE)"
    ),
    "ed557d9402ccaa3a30d1ea6182dd33050340833e8ae9f9409ba5ab61a1b34f09": (
        "RevUtil dev: the constructiveness D1-D3 scorers and the depth grounding model were "
        "fitted on it (see the model cards for grouped cross-validated figures)"
    ),
    "0d82eb1d76715a1b57754f3486ebffbca07cf1087bf5fcd575d4d5cf70e01924": (
        "RevUtil GPT-4o labels: the constructiveness D2/D3 scorers were fitted on them too "
        "(LLM labels; never measure on them)"
    ),
    "96e1fe6ca1a92f90e5063809c7f05197872fa4cfa2ffebd737c6a6d2db3b48f7": (
        "RevUtil LLM reviews: the flaw validity thresholds were chosen on it (grouped CV: "
        "python -m prism_review.agreement.revutil_llm_reviews FILE)"
    ),
    "266049766d3ace758351f27ac2417be2084572ae98a7c733468607e1079107ed": (
        "OpenAIReview verifier gold (dev): the edit-similarity threshold was chosen on it "
        "(grouped CV: python -m prism_review.agreement.perturbation_verifier FILE)"
    ),
}


def offline_training_overlap(path: Path) -> str | None:
    """Why figures of the offline judge on ``path`` are in-sample, or None if they are not."""
    import hashlib

    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return OFFLINE_TRAINED_ON.get(digest)

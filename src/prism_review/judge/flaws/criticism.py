"""Is a review sentence a criticism, and what aspect does it address? (offline judge)

Two small linear models over TF-IDF word uni- and bigrams, trained on DISAPERE's human sentence
labels (train split; dev for the figures in the model card):

* ``criticism``: positive = ``arg_evaluative`` with ``pol_negative``, or ``arg_request``;
* ``aspect``: DISAPERE's aspect of those sentences (substance, clarity, soundness-correctness,
  originality, motivation-impact, meaningful-comparison, replicability).

The weights ship as JSON in ``prism_review/resources/models/flaws/`` (see its MODEL_CARD.md);
inference is pure Python + numpy-free arithmetic. ``python -m prism_review.training.flaws.criticism
TRAIN DEV OUT`` retrains them (needs scikit-learn).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import lru_cache
from importlib import resources
from typing import Any

MODEL_FILE = "criticism_clf.json"
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def _features(text: str) -> Counter[str]:
    toks = _TOKEN.findall(text.lower())
    feats = Counter(toks)
    feats.update(f"{a} {b}" for a, b in zip(toks, toks[1:], strict=False))
    return feats


class LinearTextModel:
    """A TF-IDF (l2-normalised) linear model: one weight row per class."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.classes: list[str] = spec["classes"]
        self.vocab: dict[str, int] = {w: i for i, w in enumerate(spec["vocab"])}
        self.idf: list[float] = spec["idf"]
        self.coef: list[list[float]] = spec["coef"]
        self.intercept: list[float] = spec["intercept"]

    def _vector(self, text: str) -> dict[int, float]:
        vec = {}
        for f, c in _features(text).items():
            j = self.vocab.get(f)
            if j is not None:
                vec[j] = c * self.idf[j]
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {j: v / norm for j, v in vec.items()}

    def scores(self, text: str) -> list[float]:
        vec = self._vector(text)
        return [
            b + sum(row[j] * v for j, v in vec.items())
            for row, b in zip(self.coef, self.intercept, strict=True)
        ]

    def proba_positive(self, text: str) -> float:
        """Binary models: probability of the positive class."""
        return 1.0 / (1.0 + math.exp(-self.scores(text)[0]))

    def predict(self, text: str) -> str:
        s = self.scores(text)
        if len(self.classes) == 2 and len(s) == 1:
            return self.classes[1] if s[0] > 0 else self.classes[0]
        return self.classes[max(range(len(s)), key=s.__getitem__)]


@lru_cache(maxsize=1)
def models() -> dict[str, LinearTextModel]:
    """The shipped models, loaded once."""
    ref = resources.files("prism_review").joinpath("resources", "models", "flaws", MODEL_FILE)
    spec = json.loads(ref.read_text(encoding="utf-8"))
    return {name: LinearTextModel(m) for name, m in spec["models"].items()}


def criticism_probability(sentence: str) -> float:
    """P(the sentence raises a weakness or asks for a change)."""
    return models()["criticism"].proba_positive(sentence)


def aspect(sentence: str) -> str:
    """DISAPERE aspect of a criticism sentence (e.g. ``asp_substance``)."""
    return models()["aspect"].predict(sentence)

"""The offline constructiveness models: linear scorers stored as JSON (no pickle).

The artefact ``resources/models/constructiveness/scorers.json`` (built by
``python -m prism_review.training.constructiveness.train``) holds

* ``rubric``: one TF-IDF vocabulary/idf and, for each of D1/D2/D3, the ridge coefficients over
  [TF-IDF | hand features | cue densities] (:func:`~.features.rubric_matrix`), followed by the
  DoA encoder's support features (:mod:`.support`) when ``rubric.support`` names them, fitted on RevUtil
  (human dev labels, plus GPT-4o labels where the training report shows they help;
  actionability, grounding_specificity, verifiability, 1–5 scale) plus two thresholds mapping
  the 1–5 prediction onto 0/1/2 by RevUtil's level definitions;
* ``comment_type``: a multinomial logistic model over [TF-IDF | hand features] fitted on
  DISAPERE train sentences, predicting weakness / strength / question / suggestion /
  observation (mapped from review_action, fine action and polarity).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.judge.constructiveness.features import Tfidf, design_matrix, rubric_matrix
from prism_review.judge.constructiveness.support import SUPPORT_NAMES, support_matrix

ARTEFACT = "scorers.json"


@dataclass
class LinearScorer:
    """``y = X·coef + intercept``; ``thresholds`` (t1, t2) map y to 0/1/2 (y < t1 → 0, < t2 → 1)."""

    coef: np.ndarray
    intercept: float
    thresholds: tuple[float, float]

    def predict(self, x: np.ndarray) -> np.ndarray:
        return x @ self.coef + self.intercept

    def level(self, y: np.ndarray) -> np.ndarray:
        t1, t2 = self.thresholds
        return np.where(y < t1, 0, np.where(y < t2, 1, 2)).astype(int)


@dataclass
class Models:
    """Everything the offline judge loads from the artefact."""

    tfidf: Tfidf
    rubric: dict[str, LinearScorer]  # keys D1_actionability, D2_specificity, D3_justification
    type_tfidf: Tfidf
    type_classes: list[str]
    type_coef: np.ndarray  # (n_classes, n_features)
    type_intercept: np.ndarray
    #: the :mod:`.support` feature columns the rubric scorers read last ([] when none)
    support: list[str] = field(default_factory=list)

    def rubric_scores(
        self, texts: list[str], hand: np.ndarray | None = None
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per dimension: (continuous 1–5 prediction, 0/1/2 level) for each text.

        ``hand``: the texts' :func:`~.features.hand_matrix`, when already computed."""
        if not texts:
            return {k: (np.zeros(0), np.zeros(0, dtype=int)) for k in self.rubric}
        x = rubric_matrix(texts, self.tfidf, hand)
        if self.support:
            if self.support != SUPPORT_NAMES:
                raise ValueError(
                    f"scorers.json was built with support features {self.support}, this code "
                    f"computes {SUPPORT_NAMES}; rebuild it with the training command"
                )
            x = np.hstack([x, support_matrix(texts)])
        out = {}
        for k, s in self.rubric.items():
            y = s.predict(x)
            out[k] = (y, s.level(y))
        return out

    def comment_types(self, texts: list[str], hand: np.ndarray | None = None) -> list[str]:
        """The most likely comment type per text (DISAPERE-trained); ``hand`` as above."""
        if not texts:
            return []
        x = design_matrix(texts, self.type_tfidf, hand)
        logits = x @ self.type_coef.T + self.type_intercept
        return [self.type_classes[i] for i in np.argmax(logits, axis=1)]


def artefact_dir() -> Path:
    """Folder of the shipped artefacts."""
    return Path(str(resources.files("prism_review") / "resources" / "models" / "constructiveness"))


def models_from_dict(d: dict[str, Any]) -> Models:
    """Build :class:`Models` from the JSON artefact's content."""
    r = d["rubric"]
    tfidf = Tfidf(r["vocab"], r["idf"])
    rubric = {
        k: LinearScorer(np.asarray(v["coef"]), float(v["intercept"]), tuple(v["thresholds"]))  # type: ignore[arg-type]
        for k, v in r["scorers"].items()
    }
    t = d["comment_type"]
    return Models(
        tfidf=tfidf,
        rubric=rubric,
        type_tfidf=Tfidf(t["vocab"], t["idf"]),
        type_classes=list(t["classes"]),
        type_coef=np.asarray(t["coef"]),
        type_intercept=np.asarray(t["intercept"]),
        support=list(r.get("support", [])),
    )


@lru_cache(maxsize=4)
def load_models(path: str | None = None) -> Models:
    """Load (once) the artefact; ``path`` overrides the shipped file."""
    p = Path(path) if path else artefact_dir() / ARTEFACT
    if not p.exists():
        raise FileNotFoundError(
            f"{p} is missing; build it with `python -m prism_review.training.constructiveness.train`"
        )
    return models_from_dict(json.loads(p.read_text(encoding="utf-8")))

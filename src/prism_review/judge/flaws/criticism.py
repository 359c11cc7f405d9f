"""Is a review sentence a criticism, and what aspect does it address? (offline judge)

Two small linear models over TF-IDF word uni- and bigrams, trained on DISAPERE's human sentence
labels (train split; dev for the figures in the model card):

* ``criticism``: positive = ``arg_evaluative`` with ``pol_negative``, or ``arg_request``;
* ``aspect``: DISAPERE's aspect of those sentences (substance, clarity, soundness-correctness,
  originality, motivation-impact, meaningful-comparison, replicability).

The weights ship as JSON in ``prism_review/resources/models/flaws/`` (see its MODEL_CARD.md);
inference is pure Python + numpy-free arithmetic. ``python -m prism_review.judge.flaws.criticism
TRAIN DEV OUT`` retrains them (needs scikit-learn).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from functools import lru_cache
from importlib import resources
from pathlib import Path
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


# --- training (development only) ---------------------------------------------------------


def _rows(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def _is_criticism(s: dict[str, Any]) -> bool:
    act = s.get("review_action")
    return (act == "arg_evaluative" and s.get("polarity") == "pol_negative") or act == "arg_request"


def _fit(texts: list[str], labels: list[str], max_features: int) -> tuple[dict[str, Any], Any, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=max_features, lowercase=True)
    x = vec.fit_transform(texts)
    clf = LogisticRegression(max_iter=2000, C=4.0, class_weight="balanced")
    clf.fit(x, labels)
    vocab = [""] * len(vec.vocabulary_)
    for w, i in vec.vocabulary_.items():
        vocab[i] = w
    spec = {
        "classes": [str(c) for c in clf.classes_],
        "vocab": vocab,
        "idf": [round(float(v), 5) for v in vec.idf_],
        "coef": [[round(float(v), 5) for v in row] for row in clf.coef_],
        "intercept": [round(float(v), 5) for v in clf.intercept_],
    }
    return spec, vec, clf


def train(train_path: Path, dev_path: Path) -> tuple[dict[str, Any], dict[str, float]]:
    """Fit both models on DISAPERE train; return (spec, dev figures)."""
    from sklearn.metrics import accuracy_score, f1_score

    def data(path: Path) -> tuple[list[str], list[str], list[str], list[str]]:
        ct, cl, at, al = [], [], [], []
        for r in _rows(path):
            for s in r["sentences"]:
                crit = _is_criticism(s)
                ct.append(s["text"])
                cl.append("yes" if crit else "no")
                if crit and str(s.get("aspect", "")).startswith("asp_"):
                    at.append(s["text"])
                    al.append(s["aspect"])
        return ct, cl, at, al

    ct, cl, at, al = data(train_path)
    dct, dcl, dat, dal = data(dev_path)
    crit_spec, cvec, cclf = _fit(ct, cl, 6000)
    asp_spec, avec, aclf = _fit(at, al, 4000)
    pc = cclf.predict(cvec.transform(dct))
    pa = aclf.predict(avec.transform(dat))
    figures = {
        "criticism.dev.accuracy": round(float(accuracy_score(dcl, pc)), 4),
        "criticism.dev.macro_f1": round(float(f1_score(dcl, pc, average="macro")), 4),
        "criticism.dev.n": len(dcl),
        "aspect.dev.accuracy": round(float(accuracy_score(dal, pa)), 4),
        "aspect.dev.macro_f1": round(float(f1_score(dal, pa, average="macro")), 4),
        "aspect.dev.n": len(dal),
    }
    spec = {
        "source": "DISAPERE train split (nnkennard/DISAPERE@9adab87, CC BY-NC 4.0)",
        "models": {"criticism": crit_spec, "aspect": asp_spec},
        "dev": figures,
    }
    return spec, figures


if __name__ == "__main__":  # pragma: no cover
    spec, figures = train(Path(sys.argv[1]), Path(sys.argv[2]))
    Path(sys.argv[3]).write_text(json.dumps(spec, separators=(",", ":")), encoding="utf-8")
    print(json.dumps(figures, indent=2))

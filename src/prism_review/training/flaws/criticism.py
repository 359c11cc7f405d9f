"""Train the offline flaws judge's criticism and aspect models (the run-time side is
:mod:`prism_review.judge.flaws.criticism`).

``python -m prism_review.training.flaws.criticism TRAIN.jsonl DEV.jsonl OUT.json`` fits both on
DISAPERE train, prints the dev figures and writes the JSON weights (needs scikit-learn;
deterministic: fixed data order).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


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

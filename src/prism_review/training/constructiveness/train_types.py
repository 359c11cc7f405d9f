"""The offline judge's comment-type classifier (weakness / strength / question / suggestion /
observation): multinomial logistic regression on DISAPERE train sentences, measured on DISAPERE
dev. Built by :mod:`.train` into the ``comment_type`` part of ``scorers.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from prism_review.data.jsonl import read_jsonl
from prism_review.judge.constructiveness.features import Tfidf, design_matrix


def disapere_type(s: dict) -> str:
    """Map a DISAPERE sentence label onto a PRISM comment type."""
    act, fine, pol = (
        s["review_action"],
        s.get("fine_review_action", "none"),
        s.get("polarity", "none"),
    )
    if act == "arg_request":
        if s["text"].rstrip().endswith("?") or fine in (
            "arg-request_clarification",
            "arg-request_explanation",
        ):
            return "question"
        return "suggestion"
    if act == "arg_evaluative":
        return (
            "strength"
            if pol == "pol_positive"
            else "weakness"
            if pol == "pol_negative"
            else "observation"
        )
    return "observation"


def _sentences(path: Path) -> tuple[list[str], list[str]]:
    texts, labels = [], []
    for r in read_jsonl(path):
        for s in r["sentences"]:
            if s["text"].strip():
                texts.append(s["text"])
                labels.append(disapere_type(s))
    return texts, labels


def train_types(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit the comment-type classifier on DISAPERE train; measure on dev."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, f1_score

    tr_x, tr_y = _sentences(folder / "train.jsonl")
    dv_x, dv_y = _sentences(folder / "dev.jsonl")
    tf = Tfidf.fit(tr_x, min_df=3, max_features=3000)
    clf = LogisticRegression(C=3.0, max_iter=2000)
    clf.fit(design_matrix(tr_x, tf), tr_y)
    pred = clf.predict(design_matrix(dv_x, tf))
    report = {
        "n_train_sentences": len(tr_x),
        "n_dev_sentences": len(dv_x),
        "dev_accuracy": round(float(accuracy_score(dv_y, pred)), 4),
        "dev_macro_f1": round(float(f1_score(dv_y, pred, average="macro")), 4),
        "dev_majority_class_accuracy": round(max(dv_y.count(c) for c in set(dv_y)) / len(dv_y), 4),
    }
    part = {
        "vocab": tf.vocab,
        "idf": _round(tf.idf),
        "classes": [str(c) for c in clf.classes_],
        "coef": [_round(r) for r in clf.coef_],
        "intercept": _round(clf.intercept_),
    }
    return part, report


def _round(v: Any) -> list[float]:
    return [round(float(x), 6) for x in np.asarray(v).ravel()]

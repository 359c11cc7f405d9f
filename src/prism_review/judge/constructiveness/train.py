"""Build the offline constructiveness artefact (deterministic).

    python -m prism_review.judge.constructiveness.train \\
        [--revutil ../shared/data/labels/revutil/dev.jsonl] \\
        [--disapere ../shared/data/labels/disapere] [--out DIR]

* D1/D2/D3: ridge regression on [TF-IDF uni+bigrams | rubric cue features] fitted on the RevUtil
  dev points (target: mean of the annotators' numeric labels for actionability,
  grounding_specificity, verifiability). The 1–5 prediction becomes 0/1/2 by *proportion
  matching*: the two thresholds are the prediction quantiles that reproduce the share of majority
  labels at each level under the data README's conversion (actionability and verifiability
  {1,2}→0, 3→1, {4,5}→2; grounding {1,2}→0, {3,4}→1, 5→2), so a level means what the human 0/1/2
  conversion means on RevUtil. The ridge strength is chosen by 5-fold cross-validation grouped by
  ``paper_id`` on the Spearman of the shipped 0/1/2 levels; in the CV each fold's thresholds come
  from its training folds only. The shipped thresholds come from the out-of-fold predictions of
  all of dev; the shipped ridge is fitted on all of dev.
* comment type: multinomial logistic regression on DISAPERE train sentences; measured on DISAPERE
  dev.

Writes ``scorers.json`` (the artefact) and ``training_report.json`` (the measured figures).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.agreement import read_jsonl
from prism_review.judge.constructiveness.features import Tfidf, design_matrix
from prism_review.judge.constructiveness.model import ARTEFACT, artefact_dir
from prism_review.testing.shared import SHARED

ASPECTS = {
    "D1_actionability": "actionability",
    "D2_specificity": "grounding_specificity",
    "D3_justification": "verifiability",
}
ALPHAS = (1.0, 3.0, 10.0)
TYPE_CLASSES = ["weakness", "strength", "question", "suggestion", "observation"]
DEFAULT_REVUTIL = Path(f"{SHARED}/data/labels/revutil/dev.jsonl")
DEFAULT_DISAPERE = Path(f"{SHARED}/data/labels/disapere")


def numeric_mean(labels: Sequence[Any]) -> float:
    """Mean of the numeric labels (``"X"`` and nulls ignored); NaN when there are none."""
    v = [float(x) for x in labels if isinstance(x, int | float) and not isinstance(x, bool)]
    return float(np.mean(v)) if v else float("nan")


def majority(label: Any) -> float:
    """The majority label as a float, NaN when missing or ``"X"``."""
    return (
        float(label)
        if isinstance(label, int | float) and not isinstance(label, bool)
        else float("nan")
    )


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b)[0])


def _levels(p: np.ndarray, t1: float, t2: float) -> np.ndarray:
    return np.where(p < t1, 0, np.where(p < t2, 1, 2))


#: the data README's 1–5 → 0/1/2 conversion, per aspect
CONVERSION: dict[str, dict[int, int]] = {
    "actionability": {1: 0, 2: 0, 3: 1, 4: 2, 5: 2},
    "grounding_specificity": {1: 0, 2: 0, 3: 1, 4: 1, 5: 2},
    "verifiability": {1: 0, 2: 0, 3: 1, 4: 2, 5: 2},
}


def proportion_thresholds(pred: np.ndarray, gold: np.ndarray, aspect: str) -> tuple[float, float]:
    """(t1, t2): prediction quantiles giving the converted gold labels' level shares."""
    lv = np.array([CONVERSION[aspect][int(g)] for g in gold])
    q1, q2 = np.quantile(pred, [float((lv == 0).mean()), float((lv <= 1).mean())])
    return float(q1), float(q2)


def _ridge(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import Ridge

    m = Ridge(alpha=alpha).fit(x, y)
    return np.asarray(m.coef_), float(m.intercept_)


def _folds(groups: Sequence[str], k: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import GroupKFold

    idx = np.arange(len(groups))
    return [(tr, te) for tr, te in GroupKFold(k).split(idx, groups=list(groups))]


def train_rubric(rows: list[dict]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Cross-validate, then fit the D1–D3 scorers on all rows. Returns (artefact part, report)."""
    texts = [r["review_point"] for r in rows]
    groups = [r["paper_id"] for r in rows]
    folds = _folds(groups)
    report: dict[str, Any] = {"n_points": len(rows), "n_papers": len(set(groups)), "cv": {}}
    fold_tfidf = []
    for tr, te in folds:
        tf = Tfidf.fit([texts[i] for i in tr])
        fold_tfidf.append(
            (
                tf,
                design_matrix([texts[i] for i in tr], tf),
                design_matrix([texts[i] for i in te], tf),
            )
        )
    scorers: dict[str, Any] = {}
    tfidf = Tfidf.fit(texts)
    x_all = design_matrix(texts, tfidf)
    for dim, aspect in ASPECTS.items():
        y = np.array([numeric_mean(r["labels"][aspect]["raw"]) for r in rows])
        gold = np.array([majority(r["labels"][aspect]["majority"]) for r in rows])
        res: dict[str, Any] = {}
        best_alpha, best_s, best_oof = ALPHAS[0], -2.0, np.zeros(len(rows))
        for alpha in ALPHAS:
            oof = np.zeros(len(rows))
            lv = np.zeros(len(rows))
            for (tr, te), (_tf, xtr, xte) in zip(folds, fold_tfidf, strict=True):
                ok = ~np.isnan(y[tr])
                coef, b = _ridge(xtr[ok], y[tr][ok], alpha)
                oof[te] = xte @ coef + b
                ptr = xtr @ coef + b
                g = ~np.isnan(gold[tr])
                t1, t2 = proportion_thresholds(ptr[g], gold[tr][g], aspect)
                lv[te] = _levels(oof[te], t1, t2)
            g = ~np.isnan(gold)
            s_cont, s_lv = _spearman(oof[g], gold[g]), _spearman(lv[g], gold[g])
            res[f"alpha={alpha:g}"] = {
                "spearman_continuous": round(s_cont, 4),
                "spearman_0_1_2": round(s_lv, 4),
            }
            if s_lv > best_s:  # choose by what ships: the 0/1/2 levels
                best_alpha, best_s, best_oof = alpha, s_lv, oof
        g = ~np.isnan(gold)
        t1, t2 = proportion_thresholds(best_oof[g], gold[g], aspect)
        ok = ~np.isnan(y)
        coef, b = _ridge(x_all[ok], y[ok], best_alpha)
        scorers[dim] = {
            "aspect": aspect,
            "alpha": best_alpha,
            "coef": _round(coef),
            "intercept": round(b, 6),
            "thresholds": [round(t1, 6), round(t2, 6)],
        }
        res["chosen_alpha"] = best_alpha
        res["n_gold"] = int(g.sum())
        res["n_train"] = int(ok.sum())
        report["cv"][f"{aspect}->{dim}"] = res
    part = {"vocab": tfidf.vocab, "idf": _round(tfidf.idf), "scorers": scorers}
    return part, report


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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--revutil", type=Path, default=DEFAULT_REVUTIL)
    ap.add_argument("--disapere", type=Path, default=DEFAULT_DISAPERE)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    out = a.out or artefact_dir()
    out.mkdir(parents=True, exist_ok=True)
    rubric, r_report = train_rubric(read_jsonl(a.revutil))
    types, t_report = train_types(a.disapere)
    artefact = {"format": 1, "rubric": rubric, "comment_type": types}
    (out / ARTEFACT).write_text(
        json.dumps(artefact, separators=(",", ":"), sort_keys=True), encoding="utf-8"
    )
    report = {"revutil_dev": r_report, "disapere_comment_type": t_report}
    (out / "training_report.json").write_text(
        json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(json.dumps(report, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

"""Grounding scored on the unit it is asked about: ``python -m prism_review.training.depth.train_grounding --out DIR``.

The ground step scores one premise (a sentence or a clause), while RevUtil grades whole review
points (often several sentences). This command measures a grounding recipe *on units*: a
5-fold cross-validation grouped by paper, scored only on the human RevUtil points that are one
sentence long (the size of a premise), and writes the refitted head (the linear model's
``grounding`` head; vocabulary, idf, dense scaling and the other heads kept) to ``--out``.

Recipes (training rows; every recipe is scored on the same human single-sentence points):

* default: every human RevUtil dev point with a majority label (the shipped head's recipe);
* ``--single-only``: only single-sentence points (the unit's size);
* ``--gpt4o``: also the RevUtil GPT-4o points (``revutil-gpt4o/train.jsonl``; LLM labels:
  trained on, never measured on).

Measured 2026-12-01 (model card §2): the shipped recipe did best on units (macro-F1 0.618,
mean grade 1.05 vs 1.30 labelled); single-sentence training and the GPT-4o labels did worse,
so the shipped head was kept. Grades map as in
:func:`prism_review.judge.depth.data.grounding_of_revutil`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.data.jsonl import read_jsonl
from prism_review.judge.depth.data import grounding_of_revutil
from prism_review.judge.depth.model import DepthModel, read_model, save_model
from prism_review.text import sentence_spans
from prism_review.training.depth.train import DEFAULT_LABELS, DEFAULT_OUT


def points(labels: Path, gpt4o: bool) -> list[dict[str, Any]]:
    """RevUtil points with a grade: text, grade 0/1/2, paper, source, single-sentence flag."""
    out = []
    for rec in read_jsonl(labels / "revutil" / "dev.jsonl"):
        g = grounding_of_revutil(rec["labels"]["grounding_specificity"]["majority"])
        if g is not None:
            out.append({"text": rec["review_point"], "g": g, "paper": rec["paper_id"], "human": 1})
    if gpt4o:
        for rec in read_jsonl(labels / "revutil-gpt4o" / "train.jsonl"):
            g = grounding_of_revutil(rec["labels"]["grounding_specificity"])
            if g is not None:
                out.append(
                    {"text": rec["review_point"], "g": g, "paper": rec["paper_id"], "human": 0}
                )
    for p in out:
        p["single"] = len(sentence_spans(p["text"])) == 1
    return out


def features(model: DepthModel, texts: list[str]) -> Any:
    """The grounding head's features of each text scored on its own (as the ground step does)."""
    import scipy.sparse as sp

    data: list[float] = []
    ind: list[int] = []
    ptr = [0]
    for t in texts:
        i, v = model.sparse_vector(t)
        ind.extend(i.tolist())
        data.extend(v.tolist())
        ptr.append(len(ind))
    x = sp.csr_matrix((data, ind, ptr), shape=(len(texts), len(model.vocab)))
    dense = np.vstack([model.dense_part([t], 0) for t in texts])
    return sp.hstack([x, sp.csr_matrix(dense)]).tocsr()


def _lr(c: float) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight="balanced", max_iter=3000)


def main(argv: list[str] | None = None) -> None:
    from scipy.stats import spearmanr
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    ap.add_argument("--model", type=Path, default=DEFAULT_OUT, help="model.json is read here")
    ap.add_argument("--out", type=Path, required=True, help="where the refitted model is written")
    ap.add_argument("--c", type=float, default=1.0)
    ap.add_argument("--gpt4o", action="store_true", help="also train on the GPT-4o points")
    ap.add_argument("--single-only", action="store_true", help="train on single-sentence points")
    a = ap.parse_args(argv)
    model = read_model(a.model)
    pts = points(a.labels, a.gpt4o)
    x = features(model, [p["text"] for p in pts])
    y = np.array([p["g"] for p in pts])
    single = np.array([p["single"] for p in pts])
    human = np.array([p["human"] for p in pts], dtype=bool)
    papers = {p: i for i, p in enumerate(sorted({q["paper"] for q in pts}))}
    groups = np.array([papers[p["paper"]] for p in pts])
    use = single if a.single_only else np.ones(len(pts), bool)
    pred = np.full(len(pts), -1)
    for tr, te in GroupKFold(5).split(x, y, groups):
        fit = np.zeros(len(pts), bool)
        fit[tr] = True
        fit &= use
        pred[te] = _lr(a.c).fit(x[fit], y[fit]).predict(x[te])
    ev = human & single
    head = _lr(a.c).fit(x[use], y[use])
    meta = json.loads((a.model / "model.json").read_text("utf-8"))
    with np.load(a.model / "weights.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    assert [int(k) for k in head.classes_] == [0, 1, 2]
    arrays["grounding_coef"] = head.coef_
    arrays["grounding_intercept"] = head.intercept_
    meta["hyperparameters"]["grounding"] = {
        "trained_on": ("single-sentence " if a.single_only else "")
        + "RevUtil points (human dev"
        + (" + GPT-4o)" if a.gpt4o else ")"),
        "C": a.c,
        "rows": int(use.sum()),
    }
    save_model(a.out, meta, arrays)
    report = {
        "revutil.grounding.single_sentence.cv5_macro_f1": round(
            float(f1_score(y[ev], pred[ev], average="macro")), 4
        ),
        "revutil.grounding.single_sentence.cv5_spearman": round(
            float(spearmanr(y[ev], pred[ev]).statistic), 4
        ),
        "revutil.grounding.single_sentence.mean_predicted": round(float(pred[ev].mean()), 4),
        "revutil.grounding.single_sentence.mean_gold": round(float(y[ev].mean()), 4),
        "n.revutil.grounding.single_sentence": int(ev.sum()),
        "n.training_rows": int(use.sum()),
    }
    path = a.out / "dev_report.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    old.update(report)
    path.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    print(json.dumps(report, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

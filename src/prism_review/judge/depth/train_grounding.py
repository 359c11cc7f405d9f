"""Refit the offline judge's grounding head on units of the size it scores: ``python -m prism_review.judge.depth.train_grounding``.

The ground step scores one premise: a sentence or a clause. A head trained on whole RevUtil
review points (often several sentences, with the point's grade earned by any of them) grades
a single premise lower than its point (mean 0.78 vs 1.45 on first sentences). This command fits
the ``grounding`` head of the linear model (``model.json`` / ``weights.npz``; its vocabulary,
idf and dense scaling are kept, the other heads are untouched) on review points that are one
sentence long, the unit the judge is asked about:

* RevUtil human dev points with a majority ``grounding_specificity`` label;
* RevUtil GPT-4o points (``revutil-gpt4o/train.jsonl``; LLM labels: trained on, never measured
  on), unless ``--no-gpt4o``.

Grades map as in :func:`prism_review.judge.depth.data.grounding_of_revutil`. The figure is a
5-fold cross-validation grouped by paper, scored on the human single-sentence points only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.agreement import read_jsonl
from prism_review.judge.depth.data import grounding_of_revutil
from prism_review.judge.depth.model import DepthModel, read_model, save_model
from prism_review.judge.depth.train import DEFAULT_LABELS, DEFAULT_OUT
from prism_review.text import sentence_spans


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
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--c", type=float, default=1.0)
    ap.add_argument("--no-gpt4o", action="store_true")
    ap.add_argument("--all-points", action="store_true", help="train on multi-sentence points too")
    a = ap.parse_args(argv)
    model = read_model(a.model)
    pts = points(a.labels, not a.no_gpt4o)
    x = features(model, [p["text"] for p in pts])
    y = np.array([p["g"] for p in pts])
    single = np.array([p["single"] for p in pts])
    human = np.array([p["human"] for p in pts], dtype=bool)
    papers = {p: i for i, p in enumerate(sorted({q["paper"] for q in pts}))}
    groups = np.array([papers[p["paper"]] for p in pts])
    use = np.ones(len(pts), bool) if a.all_points else single
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
        "trained_on": "single-sentence RevUtil points"
        + ("" if a.no_gpt4o else " (human dev + GPT-4o)")
        + (" and multi-sentence points" if a.all_points else ""),
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

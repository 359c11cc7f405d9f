"""Experiment (issue 12): the encoder's role evidence stacked with sparse lexical features.

``python -m prism_review.training.depth.lexical_role [--vector-cache FILE]``

SubstanReview sentence claim / evidence / none, one review's sentences as one call (every
sentence as context). Two stages, both scikit-learn logistic regression, class-balanced:

1. ``encoder``: a 3-class head on the frozen encoder's run-time features
   (``[own | contextualised | call mean]``, int8 graph, :mod:`prism_review.judge.depth.encoder`). Its training-slice
   log-probabilities for stage 2 are out-of-fold (5 review-grouped folds), so stage 2 does not
   learn to trust in-sample scores. (The encoder itself was fine-tuned on the train slice's
   argumentative labels, which no fold can undo: its train figures stay optimistic.)
2. ``stack``: one 3-class model over the sentence's sublinear TF-IDF vector (word 1-2-grams and
   in-word char 2-5-grams; the shipped linear model's vocabulary and idf, :mod:`prism_review.judge.depth.model`), the
   previous and next sentence's vectors (weight 0.5), the 43 scaled dense cues (numbers,
   citations, figure/table references, because/since/e.g., position, section, neighbour cues,
   sentiment) and stage 1's log-probabilities of the sentence and of its two neighbours.

C of each stage is chosen by review-grouped 5-fold CV inside the train slice (``id % 5 != 0``);
the dev slice (``id % 5 == 0``, never trained on) is measured once at the end. Training rows:
SubstanReview only (the 3-class decision is SubstanReview's). Writes nothing but a JSON report
(``--report``); see the model card's experiments section for the figures.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.agreement.substanreview import r_premise
from prism_review.judge.depth import data as D
from prism_review.judge.depth.encoder import contextualise_stacked, read_encoder
from prism_review.judge.depth.model import load_model
from prism_review.training.depth.train import DEFAULT_LABELS, DEFAULT_OUT

LABELS = list(D.SUBSTAN_LABELS)
NEIGHBOUR_WEIGHT = 0.5


def lexical_rows(lin: Any, texts: list[str]) -> Any:
    """Sparse rows ``[own tf-idf | 0.5·previous | 0.5·next | dense cues]`` of one call."""
    from scipy import sparse

    ns = len(lin.vocab)
    vecs = [lin._cached(t)[:2] for t in texts]
    rows, cols, vals = [], [], []
    for i in range(len(texts)):
        for block, j, w in (
            (0, i, 1.0),
            (1, i - 1, NEIGHBOUR_WEIGHT),
            (2, i + 1, NEIGHBOUR_WEIGHT),
        ):
            if 0 <= j < len(texts):
                idx, v = vecs[j]
                rows.extend([i] * len(idx))
                cols.extend((block * ns + idx).tolist())
                vals.extend((w * v).tolist())
        dense = lin.dense_part(texts, i)
        rows.extend([i] * len(dense))
        cols.extend(range(3 * ns, 3 * ns + len(dense)))
        vals.extend(dense.tolist())
    nd = len(lin.dense_scale)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(texts), 3 * ns + nd))


def neighbour_block(logp: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """``[own | previous | next]`` stage-1 log-probabilities (zeros across review edges)."""
    prev = np.zeros_like(logp)
    nxt = np.zeros_like(logp)
    same = groups[1:] == groups[:-1]
    prev[1:][same] = logp[:-1][same]
    nxt[:-1][same] = logp[1:][same]
    return np.hstack([logp, prev, nxt])


def build(enc: Any, lin: Any, reviews: list[D.LabelledReview]) -> dict[str, Any]:
    """Encoder features, lexical rows, labels and review groups of ``reviews``."""
    from scipy import sparse

    xe: list[np.ndarray] = []
    xl: list[Any] = []
    y: list[int] = []
    g: list[int] = []
    for k, r in enumerate(reviews):
        xe.append(contextualise_stacked(enc.vectors(r.texts), enc._stacked))
        xl.append(lexical_rows(lin, r.texts))
        y.extend(LABELS.index(lab["label"]) for lab in r.labels)
        g.extend([k] * len(r.texts))
    return {
        "enc": np.vstack(xe),
        "lex": sparse.vstack(xl).tocsr(),
        "y": np.asarray(y),
        "g": np.asarray(g),
    }


def fit(x: Any, y: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, max_iter=3000, class_weight="balanced").fit(x, y)


def oof_logp(x: Any, y: np.ndarray, g: np.ndarray, c: float) -> np.ndarray:
    """Out-of-fold log-probabilities, 5 review-grouped folds."""
    from sklearn.model_selection import GroupKFold

    out = np.zeros((len(y), len(LABELS)))
    for tr, te in GroupKFold(5).split(x, y, g):
        out[te] = fit(x[tr], y[tr], c).predict_log_proba(x[te])
    return out


def stack_x(d: dict[str, Any], logp: np.ndarray, with_lex: bool = True) -> Any:
    from scipy import sparse

    enc_part = sparse.csr_matrix(neighbour_block(logp, d["g"]))
    return sparse.hstack([d["lex"], enc_part]).tocsr() if with_lex else enc_part


def scores(y: np.ndarray, pred: np.ndarray, g: np.ndarray) -> dict[str, float]:
    """3-class macro-F1, per-class F1 and the R_premise means (as ``prism agreement``)."""
    from sklearn.metrics import f1_score

    per = f1_score(y, pred, labels=[0, 1, 2], average=None)
    out = {"macro_f1": round(float(per.mean()), 4)}
    out.update({f"f1.{lab}": round(float(v), 4) for lab, v in zip(LABELS, per, strict=True)})
    for name, seq in (("r_premise.predicted", pred), ("r_premise.gold", y)):
        rs = [r_premise([LABELS[i] for i in seq[g == k]]) for k in np.unique(g)]
        out[name] = round(float(np.mean(rs)), 4)
    return out


def cv_stack(d: dict[str, Any], logp: np.ndarray, c: float, with_lex: bool = True) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    x = stack_x(d, logp, with_lex)
    pred = np.zeros(len(d["y"]), dtype=int)
    for tr, te in GroupKFold(5).split(x, d["y"], d["g"]):
        pred[te] = fit(x[tr], d["y"][tr], c).predict(x[te])
    return pred


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    ap.add_argument("--encoder", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--vector-cache", type=Path, default=None)
    ap.add_argument("--c-encoder", default="0.03,0.1,0.3")
    ap.add_argument("--c-stack", default="0.1,0.3,1,3")
    ap.add_argument("--report", type=Path, default=None)
    ap.add_argument(
        "--dev-every-c",
        action="store_true",
        help="also report dev at every --c-stack value (sensitivity; the choice stays CV's)",
    )
    a = ap.parse_args(argv)
    t0 = time.time()
    enc = read_encoder(a.encoder)
    if a.vector_cache is not None and a.vector_cache.exists():
        with np.load(a.vector_cache, allow_pickle=False) as z:
            enc._cache.update(dict(zip(z["texts"].tolist(), z["vectors"], strict=True)))
    lin = load_model()
    reviews = D.load_substanreview(a.labels / "substanreview" / "train.jsonl")
    train = [r for r in reviews if int(r.review_id) % 5 != 0]
    dev = [r for r in reviews if int(r.review_id) % 5 == 0]
    tr, dv = build(enc, lin, train), build(enc, lin, dev)
    if a.vector_cache is not None and not a.vector_cache.exists():
        saved = enc._cache.items()
        np.savez(
            a.vector_cache,
            texts=np.array([t for t, _ in saved]),
            vectors=np.vstack([v for _, v in saved]),
        )
    print(f"features built: {len(tr['y'])} train, {len(dv['y'])} dev rows", flush=True)
    report: dict[str, Any] = {"cv": {}, "n.train": len(tr["y"]), "n.dev": len(dv["y"])}
    # stage 1: C by CV of the encoder head alone
    best_e, best_f = None, -1.0
    logps = {}
    for c in map(float, a.c_encoder.split(",")):
        logps[c] = oof_logp(tr["enc"], tr["y"], tr["g"], c)
        f = scores(tr["y"], logps[c].argmax(1), tr["g"])
        report["cv"][f"encoder C={c}"] = f
        print("cv encoder", c, f, flush=True)
        if f["macro_f1"] > best_f:
            best_e, best_f = c, f["macro_f1"]
    assert best_e is not None
    logp_tr = logps[best_e]
    # lexical alone, encoder stack without lexical, full stack: C by CV
    best: dict[str, tuple[float, float]] = {}
    variants = (("stack", True, True), ("enc_context", False, True), ("lexical", True, False))
    for name, with_lex, use_enc in variants:
        for c in map(float, a.c_stack.split(",")):
            pred = cv_stack(tr, logp_tr if use_enc else np.zeros_like(logp_tr), c, with_lex)
            f = scores(tr["y"], pred, tr["g"])
            report["cv"][f"{name} C={c}"] = f
            print("cv", name, c, f, flush=True)
            if f["macro_f1"] > best.get(name, (0.0, -1.0))[1]:
                best[name] = (c, f["macro_f1"])
    # dev, once per variant, with the CV-chosen C
    e_model = fit(tr["enc"], tr["y"], best_e)
    logp_dv = e_model.predict_log_proba(dv["enc"])
    report["dev"] = {"encoder": {"C": best_e, **scores(dv["y"], logp_dv.argmax(1), dv["g"])}}
    for name, with_lex, use_enc in variants:
        c = best[name][0]
        lt, ld = (logp_tr, logp_dv) if use_enc else (0 * logp_tr, 0 * logp_dv)
        m = fit(stack_x(tr, lt, with_lex), tr["y"], c)
        pred = m.predict(stack_x(dv, ld, with_lex))
        report["dev"][name] = {"C": c, **scores(dv["y"], pred, dv["g"])}
        if a.dev_every_c:
            for c2 in map(float, a.c_stack.split(",")):
                m2 = fit(stack_x(tr, lt, with_lex), tr["y"], c2)
                sc = scores(dv["y"], m2.predict(stack_x(dv, ld, with_lex)), dv["g"])
                report["dev"][f"{name} C={c2}"] = sc
        if name == "stack":
            nnz = int((np.abs(m.coef_) > 1e-6).any(axis=0).sum())
            report["stack.nonzero_columns"] = nnz
    report["seconds"] = round(time.time() - t0)
    print(json.dumps(report, indent=1, sort_keys=True))
    if a.report is not None:
        a.report.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

"""Train the offline DoA judge: ``python -m prism_review.training.depth.train``.

Reads the human-labelled files (``--labels``, default ``<shared>/data/labels`` beside the clone, or
``$PRISM_LABELS``) and writes ``model.json`` + ``weights.npz`` + ``dev_report.json`` to
``--out`` (default: the package's ``resources/models/depth``). Deterministic: fixed folds and
solvers, no randomness beyond ``random_state=0``.

Training data (train splits only; dev figures are therefore honest):

* DISAPERE train → argumentative filter, role (fact = Premise), aspect;
* SubstanReview reviews with ``id % 5 != 0`` → filter and role (weighted, ``--substan-weight-*``);
  reviews with ``id % 5 == 0`` are the fixed dev slice;
* RevUtil dev ``grounding_specificity`` → grounding head (figure: 5-fold cross-validation).

Thresholds of the binary heads are chosen on out-of-fold predictions of the training data.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import GroupKFold, StratifiedKFold

from prism_review.judge.depth import data as D
from prism_review.judge.depth.features import CONTEXT_NAMES, unit_terms
from prism_review.judge.depth.model import HEADS, dense_features, save_model
from prism_review.shared_folder import SHARED

DEFAULT_LABELS = Path(os.environ.get("PRISM_LABELS", f"{SHARED}/data/labels"))
#: heads that also see the previous and next unit's TF-IDF vectors
CONTEXT_HEADS = ("argumentative", "role", "aspect")
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "resources" / "models" / "depth"


def _units(reviews: list[D.LabelledReview]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Texts, dense features and review number of every unit of ``reviews``, in order."""
    texts: list[str] = []
    dense: list[list[float]] = []
    group: list[int] = []
    for g, r in enumerate(reviews):
        for i in range(len(r.texts)):
            texts.append(r.texts[i])
            dense.append(dense_features(r.texts, i))
            group.append(g)
    return texts, np.asarray(dense), np.asarray(group, dtype=np.int64)


def neighbour(x: sp.csr_matrix, group: np.ndarray, step: int) -> sp.csr_matrix:
    """Row i of the result is row ``i + step`` of ``x`` when it is in the same review, else 0."""
    n = x.shape[0]
    j = np.arange(n) + step
    ok = (j >= 0) & (j < n)
    ok[ok] &= group[j[ok]] == group[ok]
    rows = np.flatnonzero(ok)
    pick = sp.csr_matrix((np.ones(len(rows)), (rows, j[ok])), shape=(n, n))
    return (pick @ x).tocsr()


def _lr(c: float, class_weight: Any = "balanced") -> LogisticRegression:
    return LogisticRegression(C=c, max_iter=5000, class_weight=class_weight)


def _oof_proba(
    x: sp.csr_matrix, y: np.ndarray, w: np.ndarray, c: float, groups: np.ndarray
) -> np.ndarray:
    """Out-of-fold positive-class probabilities (5 folds grouped by review: no context leaks)."""
    out = np.zeros(len(y))
    for tr, te in GroupKFold(5).split(x, y, groups):
        m = _lr(c).fit(x[tr], y[tr], sample_weight=w[tr])
        out[te] = m.predict_proba(x[te])[:, 1]
    return out


def _best_threshold(p: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    """Threshold maximising the mean over groups (datasets) of binary macro-F1."""
    best = (-1.0, 0.5)
    for t in np.round(np.arange(0.2, 0.81, 0.025), 3):
        pred = (p > t).astype(int)
        f = np.mean(
            [
                f1_score(y[groups == g], pred[groups == g], average="macro")
                for g in np.unique(groups)
            ]
        )
        if f > best[0] + 1e-12:
            best = (float(f), float(t))
    return best[1]


def train(
    labels: Path,
    out: Path,
    *,
    min_df: int,
    c: dict[str, float],
    substan_weight: dict[str, float],
    dense_weight: float,
    context_weight: float,
    role_context_kept: bool = False,
) -> dict[str, Any]:
    """Fit all heads, write the artefacts to ``out`` and return the dev report."""
    t0 = time.time()
    d_train = D.load_disapere(labels / "disapere" / "train.jsonl")
    d_dev = D.load_disapere(labels / "disapere" / "dev.jsonl")
    s_all = D.load_substanreview(labels / "substanreview" / "train.jsonl")
    s_train = [r for r in s_all if int(r.review_id) % 5 != 0]
    s_dev = [r for r in s_all if int(r.review_id) % 5 == 0]
    g_items = D.load_revutil_grounding(labels / "revutil" / "dev.jsonl")
    g_reviews = [D.LabelledReview(str(i), [t], [{"g": g}]) for i, (t, g) in enumerate(g_items)]

    dt_texts, dt_dense, dt_grp = _units(d_train)
    st_texts, st_dense, st_grp = _units(s_train)
    g_texts, g_dense, g_grp = _units(g_reviews)
    vec = TfidfVectorizer(analyzer=unit_terms, min_df=min_df, sublinear_tf=True, dtype=np.float64)
    vec.fit(dt_texts + st_texts + g_texts)
    all_dense = np.vstack([dt_dense, st_dense, g_dense])
    scale = dense_weight / np.maximum(np.abs(all_dense).max(axis=0), 1e-9)

    def feats(
        texts: list[str], dense: np.ndarray, grp: np.ndarray, context: bool = False
    ) -> sp.csr_matrix:
        x = vec.transform(texts).tocsr()
        blocks = [x]
        if context:
            blocks += [
                context_weight * neighbour(x, grp, -1),
                context_weight * neighbour(x, grp, 1),
            ]
        return sp.hstack(blocks + [sp.csr_matrix(dense * scale)]).tocsr()

    xc_dt = feats(dt_texts, dt_dense, dt_grp, True)
    xc_st = feats(st_texts, st_dense, st_grp, True)
    x_g = feats(g_texts, g_dense, g_grp)
    dl = [lab for r in d_train for lab in r.labels]
    sl = [lab["label"] for r in s_train for lab in r.labels]
    review = np.concatenate([dt_grp, 100_000 + st_grp])  # CV groups: one per review

    heads: dict[str, LogisticRegression] = {}
    thresholds: dict[str, float] = {}
    # argumentative filter: DISAPERE + SubstanReview, with neighbour context
    x = sp.vstack([xc_dt, xc_st]).tocsr()
    y = np.array([int(lab["argumentative"]) for lab in dl] + [int(v != "none") for v in sl])
    w = np.array([1.0] * len(dl) + [substan_weight["argumentative"]] * len(sl))
    grp = np.array([0] * len(dl) + [1] * len(sl))
    thresholds["argumentative"] = _best_threshold(
        _oof_proba(x, y, w, c["argumentative"], review), y, grp
    )
    heads["argumentative"] = _lr(c["argumentative"]).fit(x, y, sample_weight=w)
    # role: Premise (1) vs Claim (0), with neighbour context
    di = [i for i, lab in enumerate(dl) if lab["role"]]
    si = [i for i, v in enumerate(sl) if v != "none"]
    xc_role_st = xc_st[si]
    if role_context_kept:
        # SubstanReview's role rows see only the other claim/evidence sentences as neighbours:
        # in the steps, classify gets the units segment kept, not every sentence
        kept: list[D.LabelledReview] = []
        for r in s_train:
            ix = [i for i, lab in enumerate(r.labels) if lab["label"] != "none"]
            if ix:
                texts = [r.texts[i] for i in ix]
                kept.append(D.LabelledReview(r.review_id, texts, [r.labels[i] for i in ix]))
        xc_role_st = feats(*_units(kept), True)
    x = sp.vstack([xc_dt[di], xc_role_st]).tocsr()
    y = np.array(
        [int(dl[i]["role"] == "Premise") for i in di] + [int(sl[i] == "evidence") for i in si]
    )
    w = np.array([1.0] * len(di) + [substan_weight["role"]] * len(si))
    grp = np.array([0] * len(di) + [1] * len(si))
    thresholds["role"] = _best_threshold(
        _oof_proba(x, y, w, c["role"], review[di + [len(dl) + i for i in si]]), y, grp
    )
    heads["role"] = _lr(c["role"]).fit(x, y, sample_weight=w)
    # aspect: evaluative and request sentences of DISAPERE
    ai = [i for i, lab in enumerate(dl) if lab["action"] in ("arg_evaluative", "arg_request")]
    # (the dense cues and position features hurt aspect on dev: they are zeroed for this head,
    # so its dense coefficients are exactly 0)
    x_asp = xc_dt[ai].tolil()
    x_asp[:, xc_dt.shape[1] - all_dense.shape[1] :] = 0.0
    y_asp = np.array([dl[i]["aspect"] for i in ai])
    # balanced class weights, except that the rare Other (3 %) keeps weight 1: balanced it
    # weighed ~9 and took predictions from the three PRISM aspects (grouped CV on train)
    asp_w = {k: len(y_asp) / (4 * int((y_asp == k).sum())) for k in np.unique(y_asp)}
    asp_w["Other"] = min(asp_w.get("Other", 1.0), 1.0)
    heads["aspect"] = _lr(c["aspect"], asp_w).fit(sp.csr_matrix(x_asp), y_asp)
    # grounding: RevUtil points
    g_y = np.array([g for _, g in g_items])
    heads["grounding"] = _lr(c["grounding"]).fit(x_g, g_y)
    g_oof = np.zeros(len(g_y), dtype=int)
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(x_g, g_y):
        g_oof[te] = _lr(c["grounding"]).fit(x_g[tr], g_y[tr]).predict(x_g[te])

    vocab = [""] * len(vec.vocabulary_)
    for term, j in vec.vocabulary_.items():
        vocab[j] = term
    arrays: dict[str, np.ndarray] = {"idf": vec.idf_, "dense_scale": scale}
    meta: dict[str, Any] = {
        "format": 1,
        "features": {"dense": CONTEXT_NAMES + ["vader_abs", "vader_pos", "vader_neg", "vader_neu"]},
        "thresholds": thresholds,
        "heads": {},
        "hyperparameters": {
            "min_df": min_df,
            "C": c,
            "substan_weight": substan_weight,
            "dense_weight": dense_weight,
            "context_weight": context_weight,
            "role_context_kept": role_context_kept,
        },
    }
    for h in HEADS:
        m = heads[h]
        classes = [str(k) for k in m.classes_]
        if h == "argumentative":
            classes = ["no", "yes"]
        if h == "role":
            classes = ["Claim", "Premise"]
        meta["heads"][h] = {"classes": classes, "context": h in CONTEXT_HEADS}
        arrays[f"{h}_coef"] = m.coef_
        arrays[f"{h}_intercept"] = m.intercept_
    meta["vocabulary"] = vocab
    save_model(out, meta, arrays)

    # the numpy inference must reproduce scikit-learn's scores (float32 storage aside)
    from prism_review.judge.depth.model import read_model

    written = read_model(out)
    diffs = []
    for r in d_train[:20]:
        sk = feats(*_units([r]))
        skc = feats(*_units([r]), True)
        ours = written.scores(r.texts)
        for h in HEADS:
            xs = skc if h in CONTEXT_HEADS else sk
            ref = heads[h].decision_function(xs).reshape(len(r.texts), -1)
            diffs.append(float(np.abs(ref - ours[h]).max()))
    if max(diffs) > 1e-3:
        raise RuntimeError(f"numpy inference differs from scikit-learn by {max(diffs):.2g}")

    report = evaluate_dev(out, d_dev, s_dev)
    report["parity.max_abs_score_diff"] = float(f"{max(diffs):.2g}")
    report["revutil.grounding.cv5_macro_f1"] = round(
        float(f1_score(g_y, g_oof, average="macro")), 4
    )
    report["n.revutil.grounding"] = len(g_y)
    report["n.vocabulary"] = len(vocab)
    report["thresholds"] = thresholds
    (out / "dev_report.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    report["seconds"] = round(time.time() - t0, 1)  # printed, not written (deterministic files)
    return report


def evaluate_dev(
    model_dir: Path, d_dev: list[D.LabelledReview], s_dev: list[D.LabelledReview]
) -> dict[str, Any]:
    """Dev figures of the written model, computed from gold units through the numpy model."""
    from prism_review.judge.depth.model import read_model

    model = read_model(model_dir)
    yr, pr, ya, pa, yarg, parg = [], [], [], [], [], []
    for r in d_dev:
        sc = model.scores(r.texts)
        roles = model.predict("role", sc["role"])
        aspects = model.predict("aspect", sc["aspect"])
        args = model.predict("argumentative", sc["argumentative"])
        for lab, ro, asp, ar in zip(r.labels, roles, aspects, args, strict=True):
            yarg.append(lab["argumentative"])
            parg.append(ar == "yes")
            if lab["role"]:
                yr.append(lab["role"])
                pr.append(ro)
            if lab["action"] in ("arg_evaluative", "arg_request") and lab["aspect"] in D.ASPECT3:
                ya.append(lab["aspect"])
                pa.append(asp)
    ys, ps = [], []
    for r in s_dev:
        sc = model.scores(r.texts)
        roles = model.predict("role", sc["role"])
        args = model.predict("argumentative", sc["argumentative"])
        for lab, ro, ar in zip(r.labels, roles, args, strict=True):
            ys.append(lab["label"])
            ps.append("none" if ar == "no" else "evidence" if ro == "Premise" else "claim")
    return {
        "disapere.role.macro_f1": round(float(f1_score(yr, pr, average="macro")), 4),
        "disapere.aspect3.macro_f1": round(
            float(f1_score(ya, pa, labels=list(D.ASPECT3), average="macro")), 4
        ),
        "disapere.argumentative.macro_f1": round(float(f1_score(yarg, parg, average="macro")), 4),
        "substanreview.sentence.macro_f1": round(
            float(f1_score(ys, ps, labels=list(D.SUBSTAN_LABELS), average="macro")), 4
        ),
        "n.disapere.role": len(yr),
        "n.disapere.aspect3": len(ya),
        "n.substanreview.sentences": len(ys),
        "n.substanreview.reviews": len(s_dev),
    }


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--min-df", type=int, default=2)
    ap.add_argument("--substan-weight-argumentative", type=float, default=2.0)
    ap.add_argument("--substan-weight-role", type=float, default=0.25)
    ap.add_argument("--dense-weight", type=float, default=1.0)
    ap.add_argument("--context-weight", type=float, default=0.5)
    ap.add_argument(
        "--role-context-kept",
        action="store_true",
        help="SubstanReview role rows take only claim/evidence sentences as neighbours",
    )
    for h, v in (("argumentative", 1.0), ("role", 1.0), ("aspect", 1.0), ("grounding", 1.0)):
        ap.add_argument(f"--c-{h}", type=float, default=v)
    ap.add_argument(
        "--write-substan-dev",
        type=Path,
        default=None,
        help="only write the SubstanReview dev slice (id %% 5 == 0) as JSONL to this path",
    )
    a = ap.parse_args(argv)
    if a.write_substan_dev is not None:
        n = D.write_substan_dev(a.labels / "substanreview" / "train.jsonl", a.write_substan_dev)
        print(f"wrote {n} reviews to {a.write_substan_dev}")
        return
    c = {h: getattr(a, f"c_{h}") for h in HEADS}
    sw = {"argumentative": a.substan_weight_argumentative, "role": a.substan_weight_role}
    rep = train(
        a.labels,
        a.out,
        min_df=a.min_df,
        c=c,
        substan_weight=sw,
        dense_weight=a.dense_weight,
        context_weight=a.context_weight,
        role_context_kept=a.role_context_kept,
    )
    print(json.dumps(rep, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

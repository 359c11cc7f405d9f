"""How much of a D1–D3 figure is the luck of the folds: repeated grouped CV on RevUtil dev.

    python -m prism_review.training.constructiveness.cv_repeat [--repeats 4] [--support-encoder PATH]

:mod:`.train` measures each scorer on one grouped 5-fold split (``GroupKFold``). With 272
verifiability points the Spearman of three levels moves by about 0.01–0.03 from one split to
another, as much as the set-ups it is used to choose between differ. This check assigns papers to
5 folds by a seeded hash, ``repeats`` times, fits each dimension's shipped set-up (:data:`.train.SETUP`,
each α of :data:`.train.ALPHAS`) and prints the mean and spread of the continuous and 0/1/2
Spearman and of the levels' margin over word count. To keep it cheap the TF-IDF vocabulary is
fitted once on every text (label-free) and the thresholds are the proportion quantiles of the
pooled out-of-fold predictions (as the shipped thresholds are made), so its figures are a
comparison between set-ups, not a replacement for the training report's.

``--support-encoder`` adds the DoA encoder's support features (:mod:`prism_review.judge.constructiveness.support`) to D3 ("shipped"
for the bundled encoder, or a folder with another encoder's artefacts).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.data.jsonl import read_jsonl
from prism_review.judge.constructiveness.features import Tfidf, hand_matrix
from prism_review.judge.constructiveness.support import encoder_at, support_matrix
from prism_review.training.constructiveness import rubric_fit as F
from prism_review.training.constructiveness import train as T


def fold_of(paper_id: str, repeat: int, k: int = 5) -> int:
    """The fold of a paper in repeat ``repeat`` (seeded hash: stable across runs and machines)."""
    return int(hashlib.sha256(f"{repeat}:{paper_id}".encode()).hexdigest(), 16) % k


def repeated_cv(
    rows: list[dict], gpt_rows: list[dict], *, repeats: int, support: np.ndarray | None,
    setup: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Per dimension and α: mean/sd over repeats of the continuous and 0/1/2 Spearman."""
    texts = [r["review_point"] for r in rows] + [r["review_point"] for r in gpt_rows]
    n_h = len(rows)
    sup = support if support is not None else np.zeros((len(texts), 0))
    hand = hand_matrix(texts)
    tf = Tfidf.fit(texts)
    x = F.feature_matrix(tf, texts, hand, sup)
    src = np.r_[np.zeros(n_h), np.ones(len(gpt_rows))]
    wc = F.word_counts(texts[:n_h])
    folds = [
        (np.array([fold_of(r["paper_id"], i) for r in rows]),
         np.array([fold_of(r["paper_id"], i) for r in gpt_rows], dtype=int))
        for i in range(repeats)
    ]
    out: dict[str, Any] = {}
    for dim, aspect in T.ASPECTS.items():
        s = setup[dim]
        gw = float(s["gpt4o_weight"])
        unused = F.unused_blocks(len(tf.vocab), hand.shape[1], sup.shape[1], x.shape[1], s)
        lcol = F.length_column(len(tf.vocab), s)
        y = np.r_[[F.numeric_mean(r["labels"][aspect]["raw"]) for r in rows],
                  [F.majority(r["labels"].get(aspect)) for r in gpt_rows]]
        gold = np.array([F.majority(r["labels"][aspect]["majority"]) for r in rows])
        g = ~np.isnan(gold)
        s_wc = F.spearman(wc[g], gold[g])
        res: dict[str, Any] = {"word_count_spearman": round(s_wc, 4), "n_gold": int(g.sum())}
        for alpha in T.ALPHAS:
            cont, lev = [], []
            for f, fg in folds:
                oof = np.zeros(n_h)
                for k in range(5):
                    tr, te = np.where(f != k)[0], np.where(f == k)[0]
                    idx = F.training_rows(tr, np.where(fg != k)[0], n_h, gw > 0 and bool(gpt_rows))
                    oof[te] = F.predict((x, y, src, alpha, unused, gw, lcol), idx, te)
                t1, t2 = F.proportion_thresholds(oof[g], gold[g], aspect)
                cont.append(F.spearman(oof[g], gold[g]))
                lev.append(F.spearman(F.levels(oof, t1, t2)[g], gold[g]))
            res[f"alpha={alpha:g}"] = {
                "spearman_continuous_mean": round(float(np.mean(cont)), 4),
                "spearman_0_1_2_mean": round(float(np.mean(lev)), 4),
                "spearman_0_1_2_sd": round(float(np.std(lev)), 4),
                "spearman_0_1_2_minus_word_count_mean": round(float(np.mean(lev)) - s_wc, 4),
                "spearman_0_1_2_by_repeat": [round(v, 4) for v in lev],
            }
        out[f"{aspect}->{dim}"] = res
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--revutil", type=Path, default=T.DEFAULT_REVUTIL)
    ap.add_argument("--gpt4o", type=Path, default=T.DEFAULT_GPT4O)
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--support-encoder", default=None,
                    help="add the DoA encoder's support features to D3: 'shipped' or an encoder folder")
    a = ap.parse_args(argv)
    rows = read_jsonl(a.revutil)
    gpt = [] if str(a.gpt4o) == "none" else read_jsonl(a.gpt4o)
    setup = json.loads(json.dumps(T.SETUP))
    enc = encoder_at(a.support_encoder)
    sup = None
    if enc is not None:
        setup["D3_justification"]["support"] = True
        sup = support_matrix([r["review_point"] for r in rows + gpt], enc)
    res = repeated_cv(rows, gpt, repeats=a.repeats, support=sup, setup=setup)
    print(json.dumps({"repeats": a.repeats, "support_encoder": a.support_encoder, "setup": setup, "cv": res},
                     indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

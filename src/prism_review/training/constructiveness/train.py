"""Build the offline constructiveness artefact (deterministic).

    python -m prism_review.training.constructiveness.train \\
        [--revutil ../shared/data/labels/revutil/dev.jsonl] \\
        [--gpt4o ../shared/data/labels/revutil-gpt4o/train.jsonl] \\
        [--disapere ../shared/data/labels/disapere] [--out DIR]

* D1/D2/D3: ridge regression on [TF-IDF uni+bigrams | rubric cue features | cue densities]
  (:func:`~prism_review.judge.constructiveness.features.rubric_matrix`). Targets: the mean of the human annotators' numeric labels
  of the RevUtil dev points (actionability, grounding_specificity, verifiability) and, for the
  aspects of :data:`SETUP` that use them, GPT-4o's labels of other RevUtil points (LLM labels:
  trained on, never measured on). A source column (1 = GPT-4o) absorbs GPT-4o's different use of
  the scale; it is 0 at prediction time, so the shipped scorer predicts the human scale.
* 1–5 → 0/1/2 follows RevUtil's level definitions (:data:`~.rubric_fit.CONVERSION`, the alignment of the data
  README §6): the two thresholds are the prediction quantiles that reproduce the human majority
  labels' share of each converted level (*proportion matching*), so a level means what the
  rubric's level means.
* Measured by 5-fold cross-validation on RevUtil dev grouped by ``paper_id``; a fold trains on
  the other folds' human points and on the GPT-4o points of papers *not* in the held-out fold,
  and its thresholds come from its training folds only. The ridge strength is chosen per
  dimension on the Spearman of the shipped 0/1/2 levels. Reported beside it: the Spearman of the
  comment's word count alone on the same points (the length baseline the scorer must beat), and
  the mean predicted level vs the mean converted human level (is the scale right, not only the
  order?). The shipped thresholds come from the out-of-fold predictions; the shipped ridge is
  fitted on all the data.
* comment type: multinomial logistic regression on DISAPERE train sentences; measured on DISAPERE
  dev.

Writes ``scorers.json`` (the artefact) and ``training_report.json`` (the measured figures).
The parts of one dimension's scorer (targets, features, the masked ridge, the conversion) are in
:mod:`.rubric_fit`; this module is the protocol that cross-validates, chooses and ships them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.data.jsonl import read_jsonl
from prism_review.judge.constructiveness.features import Tfidf, hand_matrix
from prism_review.judge.constructiveness.model import ARTEFACT, artefact_dir
from prism_review.judge.constructiveness.support import SUPPORT_NAMES, encoder_at, support_matrix
from prism_review.shared_folder import SHARED
from prism_review.training.constructiveness.rubric_fit import (
    CONVERSION,
    feature_matrix,
    fit_ridge,
    group_folds,
    length_column,
    level_shares,
    levels,
    majority,
    numeric_mean,
    predict,
    proportion_thresholds,
    spearman,
    training_rows,
    unused_blocks,
    word_counts,
)
from prism_review.training.constructiveness.train_types import train_types

ASPECTS = {
    "D1_actionability": "actionability",
    "D2_specificity": "grounding_specificity",
    "D3_justification": "verifiability",
}
ALPHAS = (1.0, 3.0, 10.0)
#: folds of the inner grouped CV that sets each outer fold's 0/1/2 thresholds
INNER_FOLDS = 4
#: per dimension: the weight of GPT-4o's labelled points (0: not used; a human point weighs 1)
#: and whether the cue densities are used. Chosen on the grouped CV of RevUtil dev (the model
#: card lists the runs): GPT-4o's labels help D2 and D3 and cost D1 (GPT-4o reads actionability
#: more harshly than the annotators); the densities help D3 only.
SETUP: dict[str, dict[str, Any]] = {
    "D1_actionability": {"gpt4o_weight": 0.0, "density": False},
    "D2_specificity": {"gpt4o_weight": 1.0, "density": False},
    "D3_justification": {"gpt4o_weight": 0.5, "density": True, "length_free": True},
}
#: ``length_free``: the log-length column and the intercept are not penalised, so the other
#: features are fitted to the length-residualised target (:mod:`.lengthfree`; model card).
DEFAULT_REVUTIL = Path(f"{SHARED}/data/labels/revutil/dev.jsonl")
DEFAULT_GPT4O = Path(f"{SHARED}/data/labels/revutil-gpt4o/train.jsonl")
DEFAULT_DISAPERE = Path(f"{SHARED}/data/labels/disapere")


def train_rubric(
    rows: list[dict],
    gpt_rows: list[dict] | None = None,
    *,
    support: np.ndarray | None = None,
    setup: dict[str, dict[str, Any]] | None = None,
    alphas: Sequence[float] = ALPHAS,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Cross-validate, then fit the D1–D3 scorers on all rows. Returns (artefact part, report).

    ``support``: the :func:`~prism_review.judge.constructiveness.support.support_matrix` of the human then the GPT-4o points (by
    default computed with the shipped encoder when a set-up uses it); ``setup``: per dimension
    as :data:`SETUP`."""
    gpt_rows = gpt_rows or []
    setup = setup or SETUP
    texts = [r["review_point"] for r in rows]
    gtexts = [r["review_point"] for r in gpt_rows]
    groups = [r["paper_id"] for r in rows]
    gpt_papers = [r["paper_id"] for r in gpt_rows]
    folds = group_folds(groups)
    n_h = len(texts)
    hand = hand_matrix(texts + gtexts)
    uses_support = any(v.get("support", False) for v in setup.values())
    if support is None:
        support = support_matrix(texts + gtexts) if uses_support else np.zeros((n_h + len(gtexts), 0))
    n_sup = support.shape[1]
    report: dict[str, Any] = {
        "n_points": len(rows),
        "n_papers": len(set(groups)),
        "n_gpt4o_points": len(gpt_rows),
        "conversion": CONVERSION,
        "setup": setup,
        "support_features": SUPPORT_NAMES if n_sup else [],
        "cv": {},
    }
    fold_data = []
    for tr, te in folds:
        held = {groups[i] for i in te}
        gi = [j for j, r in enumerate(gpt_rows) if r["paper_id"] not in held]
        tf = Tfidf.fit([texts[i] for i in tr] + [gtexts[j] for j in gi])
        x = feature_matrix(tf, texts + gtexts, hand, support)
        fold_data.append((tr, te, np.asarray(gi, dtype=int), x, len(tf.vocab)))
    tfidf = Tfidf.fit(texts + gtexts)
    x_all = feature_matrix(tfidf, texts + gtexts, hand, support)
    wc = word_counts(texts)
    src_all = np.r_[np.zeros(n_h), np.ones(len(gtexts))]
    scorers: dict[str, Any] = {}
    oof_levels: dict[str, np.ndarray] = {}
    for dim, aspect in ASPECTS.items():
        dim_setup = setup[dim]
        gw = float(dim_setup["gpt4o_weight"])
        use_gpt = gw > 0 and bool(gpt_rows)
        y = np.array([numeric_mean(r["labels"][aspect]["raw"]) for r in rows])
        yg = np.array([majority(r["labels"].get(aspect)) for r in gpt_rows])
        y_all = np.r_[y, yg]
        gold = np.array([majority(r["labels"][aspect]["majority"]) for r in rows])
        g = ~np.isnan(gold)
        res: dict[str, Any] = {}
        best: tuple[float, float, np.ndarray, np.ndarray] = (alphas[0], -2.0, np.zeros(n_h), np.zeros(n_h))
        for alpha in alphas:
            oof = np.zeros(n_h)
            lv = np.zeros(n_h)
            for tr, te, g_idx, x, n_tf in fold_data:
                unused = unused_blocks(n_tf, hand.shape[1], n_sup, x.shape[1], dim_setup)
                fit = (x, y_all, src_all, alpha, unused, gw, length_column(n_tf, dim_setup))
                oof[te] = predict(fit, training_rows(tr, g_idx, n_h, use_gpt), te)
                # the fold's thresholds are made as the shipped ones are: from out-of-fold
                # predictions (an inner grouped CV over the training folds), not from the fit's
                # own training points, whose predictions spread wider than unseen points' do
                inner = np.zeros(len(tr))
                tr_groups = [groups[i] for i in tr]
                for itr, ite in group_folds(tr_groups, INNER_FOLDS):
                    held_in = {tr_groups[k] for k in ite}
                    ig = np.asarray([j for j in g_idx if gpt_papers[j] not in held_in], dtype=int)
                    inner[ite] = predict(fit, training_rows(tr[itr], ig, n_h, use_gpt), tr[ite])
                gt = ~np.isnan(gold[tr])
                t1, t2 = proportion_thresholds(inner[gt], gold[tr][gt], aspect)
                lv[te] = levels(oof[te], t1, t2)
            s_cont, s_lv = spearman(oof[g], gold[g]), spearman(lv[g], gold[g])
            res[f"alpha={alpha:g}"] = {
                "spearman_continuous": round(s_cont, 4),
                "spearman_0_1_2": round(s_lv, 4),
            }
            if s_lv > best[1]:  # choose by what ships: the 0/1/2 levels
                best = (alpha, s_lv, oof, lv)
        best_alpha, best_s, best_oof, best_lv = best
        s_wc = spearman(wc[g], gold[g])
        conv = np.array([CONVERSION[aspect][int(v)] for v in gold[g]])
        res.update(
            {
                "chosen_alpha": best_alpha,
                "n_gold": int(g.sum()),
                "n_train_human": int((~np.isnan(y)).sum()),
                "n_train_gpt4o": int((~np.isnan(yg)).sum()) if use_gpt else 0,
                "word_count_spearman": round(s_wc, 4),
                "spearman_0_1_2_minus_word_count": round(best_s - s_wc, 4),
                "spearman_continuous_minus_word_count": round(
                    res[f"alpha={best_alpha:g}"]["spearman_continuous"] - s_wc, 4
                ),
                "prediction_vs_word_count_spearman": round(spearman(best_oof[g], wc[g]), 4),
                "mean_level_predicted": round(float(best_lv[g].mean()), 4),
                "mean_level_human": round(float(conv.mean()), 4),
                "level_shares_predicted": level_shares(best_lv[g]),
                "level_shares_human": level_shares(conv),
            }
        )
        t1, t2 = proportion_thresholds(best_oof[g], gold[g], aspect)
        idx_all = np.arange(n_h + len(gtexts)) if use_gpt else np.arange(n_h)
        unused = unused_blocks(len(tfidf.vocab), hand.shape[1], n_sup, x_all.shape[1], dim_setup)
        coef, b = fit_ridge(x_all[idx_all], y_all[idx_all], src_all[idx_all], best_alpha, unused, gw,
                       length_column(len(tfidf.vocab), dim_setup))
        scorers[dim] = {
            "aspect": aspect,
            "alpha": best_alpha,
            "coef": _round(coef),
            "intercept": round(b, 6),
            "thresholds": [round(t1, 6), round(t2, 6)],
        }
        report["cv"][f"{aspect}->{dim}"] = res
        oof_levels[dim] = best_lv
    report["rules_and_mcs"] = rule_figures(rows, oof_levels)
    part: dict[str, Any] = {"vocab": tfidf.vocab, "idf": _round(tfidf.idf), "scorers": scorers}
    if n_sup:
        part["support"] = list(SUPPORT_NAMES)
    return part, report


def rule_figures(rows: list[dict], oof_levels: dict[str, np.ndarray]) -> dict[str, Any]:
    """What the human labels say about the rule-built D4/D5 and the composite CLC (out-of-fold
    D1–D3 levels + the rules), with the baselines each must beat."""
    from prism_review.judge.constructiveness.rules import solution_level, tone_level

    texts = [r["review_point"] for r in rows]
    d4 = np.array([solution_level(t) for t in texts], dtype=float)
    d5 = np.array([tone_level(t) for t in texts], dtype=float)
    clc = (oof_levels["D1_actionability"] + oof_levels["D2_specificity"]
           + oof_levels["D3_justification"] + d4 + d5) / 10
    wc = word_counts(texts)
    act = np.array([majority(r["labels"]["actionability"]["majority"]) for r in rows])
    helpful = np.array([majority(r["labels"]["helpfulness"]["majority"]) for r in rows])
    tone = np.array([majority(r["labels"]["professional_tone"]["majority"]) for r in rows])
    a, h, t = ~np.isnan(act), ~np.isnan(helpful), ~np.isnan(tone)
    return {
        "d4_vs_actionability_spearman": round(spearman(d4[a], act[a]), 4),
        "d4_mean_actionability_4_5": round(float(d4[a & (act >= 4)].mean()), 4),
        "d4_mean_actionability_1_2": round(float(d4[a & (act <= 2)].mean()), 4),
        "d5_professional_accuracy": round(float(((d5[t] >= 1) == (tone[t] == 1)).mean()), 4),
        "d5_always_professional_accuracy": round(float((tone[t] == 1).mean()), 4),
        "d5_n_unprofessional": int((tone[t] == 0).sum()),
        "clc_vs_helpfulness_spearman": round(spearman(clc[h], helpful[h]), 4),
        "word_count_vs_helpfulness_spearman": round(spearman(wc[h], helpful[h]), 4),
        "n_helpfulness": int(h.sum()),
        "mean_clc": round(float(clc.mean()), 4),
    }


def _round(v: Any) -> list[float]:
    return [round(float(x), 6) for x in np.asarray(v).ravel()]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--revutil", type=Path, default=DEFAULT_REVUTIL)
    ap.add_argument("--gpt4o", type=Path, default=DEFAULT_GPT4O,
                    help="RevUtil points labelled by GPT-4o (LLM labels, trained on only); 'none' to skip")
    ap.add_argument("--disapere", type=Path, default=DEFAULT_DISAPERE)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--support-encoder", default=None,
                    help="also give D3 the DoA encoder's support features (:mod:`prism_review.judge.constructiveness.support`): 'shipped' "
                    "or an encoder folder; measured without gain (model card), so off by default. The "
                    "artefact then needs that encoder shipped: run time reads the bundled one")
    a = ap.parse_args(argv)
    out = a.out or artefact_dir()
    out.mkdir(parents=True, exist_ok=True)
    gpt = [] if str(a.gpt4o) == "none" else read_jsonl(a.gpt4o)
    rows = read_jsonl(a.revutil)
    setup, support = SETUP, None
    if a.support_encoder is not None:
        setup = json.loads(json.dumps(SETUP))
        setup["D3_justification"]["support"] = True
        support = support_matrix([r["review_point"] for r in rows + gpt], encoder_at(a.support_encoder))
    rubric, r_report = train_rubric(rows, gpt, support=support, setup=setup)
    types, t_report = train_types(a.disapere)
    artefact = {"format": 2, "rubric": rubric, "comment_type": types}
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

"""Refit the encoder's ``role`` and ``mixed`` heads on PRISM's premise: ``python -m prism_review.training.depth.train_heads``.

PRISM's Premise "gives concrete details, evidence, reasons or specific support" (prism-reference
§4.2): SubstanReview's *evidence* (the justification of a claim), and DISAPERE's facts too. The
fine-tuned encoder (``encoder.onnx``) and its context module stay as they are; on their
features (``[own | contextualised | call mean]``, exactly what the judge computes at run time,
int8 graph included) this command fits, with scikit-learn logistic regression:

* ``role`` (Claim / Premise) on SubstanReview train-slice units (claim → Claim, evidence →
  Premise; the primary data), DISAPERE train facts (→ Premise) and DISAPERE evaluative and
  request sentences (→ Claim, with the lower weight ``--disapere-claim-weight``). Each review
  is read twice: with every sentence as context (as ``prism agreement --dataset disapere``
  calls classify) and with only its argumentative units (as the DoA steps call it). Mixed
  sentences also give their gold clauses as units (:mod:`prism_review.judge.depth.clauses`);
* ``mixed`` (does a sentence hold a claim and its support?) on SubstanReview train-slice
  sentences.

The ``argumentative`` and ``aspect`` heads are kept unchanged. Needs no torch: it runs on the
default install. The SubstanReview slice ``id % 5 == 0`` is never trained on. The DISAPERE
claim weight (0.05) was chosen on DISAPERE dev (a shared file: 0.3 / 0.1 / 0.05 gave fact
recall 0.71 / 0.81 / 0.87 with the SubstanReview slice figures unchanged), so DISAPERE dev
figures of these heads are tuned-on; ``--cv`` offers a review-grouped cross-validation on the
training reviews instead. Writes ``encoder_heads.npz``, ``encoder.json`` and
``encoder_dev_report.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.data.jsonl import read_jsonl
from prism_review.judge.depth import data as D
from prism_review.judge.depth.clauses import substan_sentences
from prism_review.judge.depth.encoder import (
    ENCODER_FILE,
    ENCODER_HEADS,
    ENCODER_META,
    TOKENIZER_FILE,
    SentenceEncoder,
    contextualise_stacked,
    read_encoder,
)
from prism_review.training.depth.train import DEFAULT_LABELS, DEFAULT_OUT

ROLE_CLASSES = ["Claim", "Premise"]
MIXED_CLASSES = ["no", "yes"]
#: class weights of the ``mixed`` head (about 8.5 % of argumentative sentences are mixed):
#: between plain and balanced, so that the run-time 0.5 threshold does not split too often
MIXED_WEIGHTS = (1.0, 3.0)
ASPECTS = ("Soundness", "Clarity", "Contribution", "Other")


#: the provenance line written to encoder.json. It names the module as it was called when the
#: shipped file was written (before it moved to prism_review.training), so that a retrain
#: reproduces the shipped encoder.json byte for byte
HEADS_REFIT = (
    "role and mixed refitted by prism_review.judge.depth.train_heads "
    "(SubstanReview evidence = Premise, DISAPERE facts = Premise)"
)


def disapere_targets(r: D.LabelledReview, claim_weight: float) -> list[dict[str, float]]:
    """Per-sentence targets (class indices; ``role_w`` a sample weight) of a DISAPERE review.

    Role: fact → Premise (weight 1: facts are "concrete details"); evaluative and request →
    Claim with ``claim_weight`` (under PRISM's evidence reading some of them are premises).
    """
    out = []
    for lab in r.labels:
        y: dict[str, float] = {"argumentative": int(lab["argumentative"])}
        if lab["role"]:
            premise = lab["role"] == "Premise"
            y["role"] = int(premise)
            y["role_w"] = 1.0 if premise else claim_weight
        if lab["action"] in ("arg_evaluative", "arg_request"):
            y["aspect"] = ASPECTS.index(lab["aspect"])
        out.append(y)
    return out


def substan_variants(rec: dict[str, Any]) -> list[tuple[list[str], list[dict[str, float]]]]:
    """One SubstanReview review as sentence units and, if any sentence splits, clause units.

    Sentence units train ``argumentative``, ``role`` (claim → Claim, evidence → Premise) and
    ``mixed``; clause units (mixed sentences replaced by their gold clauses) train
    ``argumentative`` and ``role`` on the units the judge makes at run time.
    """
    sents = substan_sentences(rec["review"], rec.get("spans", []))

    def target(label: str) -> dict[str, float]:
        y: dict[str, float] = {"argumentative": int(label != "none")}
        if label != "none":
            y["role"] = int(label == "evidence")
            y["role_w"] = 1.0
        return y

    texts, ys = [], []
    for s in sents:
        texts.append(s.text)
        ys.append({**target(s.label), "mixed": int(s.mixed)})
    variants = [(texts, ys)]
    if any(s.clauses for s in sents):
        ctexts, cys = [], []
        for s in sents:
            if s.clauses:
                for text, label in s.clauses:
                    ctexts.append(text)
                    cys.append({**target(label), "clause": 1})
            else:
                ctexts.append(s.text)
                cys.append(target(s.label))
        variants.append((ctexts, cys))
    return variants


Variants = list[tuple[list[str], list[dict[str, float]]]]


def evaluate(
    out: Path, d_dev: list[D.LabelledReview], s_dev: list[D.LabelledReview]
) -> dict[str, Any]:
    """Dev figures of the exported encoder (every sentence classified with all as context)."""
    from sklearn.metrics import f1_score

    model = read_encoder(out)
    role, aspect, arg, sub, facts = [], [], [], [], []
    r_gold: list[float] = []
    r_pred: list[float] = []
    for r in d_dev:
        p = model.probabilities(r.texts)
        for i, lab in enumerate(r.labels):
            arg.append((int(lab["argumentative"]), int(p["argumentative"][i, 1] > 0.5)))
            if lab["role"]:
                role.append((lab["role"], model.predict("role", p["role"][i : i + 1])[0]))
            if lab["action"] == "arg_fact":
                facts.append(float(p["role"][i, 1] > 0.5))
            if lab["action"] in ("arg_evaluative", "arg_request") and lab["aspect"] in D.ASPECT3:
                aspect.append((lab["aspect"], model.predict("aspect", p["aspect"][i : i + 1])[0]))
    for r in s_dev:
        p = model.probabilities(r.texts)
        pred_r = []
        for i, lab in enumerate(r.labels):
            pred = "none"
            if p["argumentative"][i, 1] > 0.5:
                pred = "evidence" if p["role"][i, 1] > 0.5 else "claim"
            sub.append((lab["label"], pred))
            pred_r.append(pred)
        gold_r = [lab["label"] for lab in r.labels]
        for seq, acc in ((gold_r, r_gold), (pred_r, r_pred)):
            n_arg = sum(x != "none" for x in seq)
            acc.append(sum(x == "evidence" for x in seq) / n_arg if n_arg else 0.0)

    def f1(pairs: list[tuple[Any, Any]], labels: list[Any]) -> float:
        g, q = zip(*pairs, strict=True)
        return round(float(f1_score(g, q, labels=labels, average="macro")), 4)

    return {
        "disapere.role.macro_f1": f1(role, ["Claim", "Premise"]),
        "disapere.fact_as_premise.recall": round(float(np.mean(facts)), 4),
        "disapere.aspect3.macro_f1": f1(aspect, list(D.ASPECT3)),
        "disapere.argumentative.macro_f1": f1(arg, [0, 1]),
        "substanreview.sentence.macro_f1": f1(sub, list(D.SUBSTAN_LABELS)),
        "substanreview.r_premise.predicted": round(float(np.mean(r_pred)), 4),
        "substanreview.r_premise.gold": round(float(np.mean(r_gold)), 4),
        "n.disapere.role": len(role),
        "n.disapere.aspect3": len(aspect),
        "n.substanreview.sentences": len(sub),
    }


def _features(enc: SentenceEncoder, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, 3 * int(enc.meta["dim"])), np.float32)
    return contextualise_stacked(enc.vectors(texts), enc._stacked)


def rows(
    enc: SentenceEncoder, reviews: list[tuple[int, Variants]], claim_weight: float
) -> dict[str, Any]:
    """Feature rows, targets, sample weights and review groups for the two heads."""
    xr, yr, wr, gr, src = [], [], [], [], []
    xm, ym, gm = [], [], []
    for group, variants in reviews:
        for v, (texts, ys) in enumerate(variants):
            full = _features(enc, texts)
            arg = [i for i, y in enumerate(ys) if y.get("argumentative")]
            kept = _features(enc, [texts[i] for i in arg])
            for feats, index in ((full, list(range(len(texts)))), (kept, arg)):
                for k, i in enumerate(index):
                    y = ys[i]
                    if "role" not in y:
                        continue
                    if v == 1 and "clause" not in y:
                        continue  # the clause variant adds only its clause units
                    w = y.get("role_w", 1.0)
                    if "disapere" in y and not y["role"]:
                        w = claim_weight
                    xr.append(feats[k])
                    yr.append(int(y["role"]))
                    wr.append(0.5 * w)
                    gr.append(group)
                    src.append("disapere" if "disapere" in y else "substan")
            if v == 0:
                for i, y in enumerate(ys):
                    if "mixed" in y:
                        xm.append(full[i])
                        ym.append(int(y["mixed"]))
                        gm.append(group)
    return {
        "role": (np.asarray(xr), np.asarray(yr), np.asarray(wr), np.asarray(gr), np.asarray(src)),
        "mixed": (np.asarray(xm), np.asarray(ym), np.asarray(gm)),
    }


def _balanced(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    tot = np.array([w[y == k].sum() for k in (0, 1)])
    cw = tot.sum() / (2 * np.maximum(tot, 1e-9))
    return w * cw[y]


def fit_role(x: np.ndarray, y: np.ndarray, w: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, max_iter=3000).fit(x, y, sample_weight=_balanced(y, w))


def cross_validate(
    enc: SentenceEncoder, train: list[tuple[int, Variants]], grid: list[tuple[float, float]]
) -> dict[str, Any]:
    """Review-grouped 5-fold CV on the training reviews for each (C, claim weight)."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    out = {}
    for c, cwt in grid:
        x, y, w, g, src = rows(enc, train, cwt)["role"]
        pred = np.zeros(len(y), dtype=int)
        for tr, te in GroupKFold(5).split(x, y, g):
            pred[te] = fit_role(x[tr], y[tr], w[tr], c).predict(x[te])
        s, d = src == "substan", src == "disapere"
        out[f"C={c},claim_weight={cwt}"] = {
            "substan.role.macro_f1": round(float(f1_score(y[s], pred[s], average="macro")), 4),
            "substan.premise_share.pred_minus_gold": round(float(pred[s].mean() - y[s].mean()), 4),
            "disapere.fact_recall": round(float(pred[d & (y == 1)].mean()), 4),
        }
        print(f"cv C={c} claim_weight={cwt}: {out[f'C={c},claim_weight={cwt}']}", flush=True)
    return out


def mixed_dev(out: Path, s_path: Path) -> dict[str, Any]:
    """The ``mixed`` head on the SubstanReview dev slice: F1 of "yes", and how often the
    run-time cue split then cuts a mixed sentence within 10 characters of the gold boundary."""
    from sklearn.metrics import f1_score

    from prism_review.judge.depth.clauses import split_clause, substan_sentences

    enc = read_encoder(out)
    gold, pred, near, split = [], [], 0, 0
    for rec in read_jsonl(s_path):
        if int(rec["id"]) % 5 != 0:
            continue
        sents = substan_sentences(rec["review"], rec.get("spans", []))
        p = enc.probabilities([s.text for s in sents])["mixed"][:, 1]
        for s, q in zip(sents, p, strict=True):
            gold.append(int(s.mixed))
            pred.append(int(q > 0.5))
            if s.clauses and q > 0.5 and (cut := split_clause(s.text)) is not None:
                split += 1
                near += abs(len(cut[0]) - len(s.clauses[0][0])) <= 10
    return {
        "substanreview.mixed.f1_yes": round(float(f1_score(gold, pred)), 4),
        "substanreview.mixed.predicted_share": round(float(np.mean(pred)), 4),
        "substanreview.mixed.gold_share": round(float(np.mean(gold)), 4),
        "substanreview.mixed.cut_within_10_chars": round(near / split, 4) if split else None,
    }


def choose(cv: dict[str, Any]) -> tuple[float, float]:
    """(C, claim weight): the best CV SubstanReview role macro-F1 among the settings whose CV
    DISAPERE fact recall is at least 0.80; if none reaches it, the highest fact recall."""
    keyed = {tuple(float(kv.split("=")[1]) for kv in k.split(",")): v for k, v in cv.items()}
    ok = [k for k, v in keyed.items() if v["disapere.fact_recall"] >= 0.80]
    if ok:
        best = max(ok, key=lambda k: keyed[k]["substan.role.macro_f1"])
    else:
        best = max(keyed, key=lambda k: keyed[k]["disapere.fact_recall"])
    return best[0], best[1]


def _as_softmax(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """A binary logistic regression as two-class softmax weights (logits 0 and w·x + b)."""
    coef = model.coef_.astype(np.float32)
    weight = np.vstack([np.zeros_like(coef), coef])
    bias = np.array([0.0, float(model.intercept_[0])], dtype=np.float32)
    return weight, bias


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    ap.add_argument("--encoder", type=Path, default=DEFAULT_OUT, help="encoder.onnx is read here")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--c", type=float, default=1.0, help="inverse regularisation of both heads")
    ap.add_argument("--disapere-claim-weight", type=float, default=0.05)
    ap.add_argument(
        "--cv",
        default=None,
        help='grid for review-grouped CV on the training reviews, e.g. "1:0.15,1:0.3" (C:claim weight)',
    )
    ap.add_argument(
        "--vector-cache", type=Path, default=None, help="npz of sentence vectors to reuse"
    )
    a = ap.parse_args(argv)
    t0 = time.time()
    enc = read_encoder(a.encoder)
    cache: dict[str, np.ndarray] = {}
    if a.vector_cache is not None and a.vector_cache.exists():
        with np.load(a.vector_cache, allow_pickle=False) as z:
            cache = dict(zip(z["texts"].tolist(), z["vectors"], strict=True))
        enc._cache.update(cache)
    limit = None
    d_train = D.load_disapere(a.labels / "disapere" / "train.jsonl", limit)
    d_dev = D.load_disapere(a.labels / "disapere" / "dev.jsonl", limit)
    s_path = a.labels / "substanreview" / "train.jsonl"
    s_dev = [r for r in D.load_substanreview(s_path, limit) if int(r.review_id) % 5 == 0]
    train: list[tuple[int, Variants]] = []
    for i, r in enumerate(d_train):
        ys = disapere_targets(r, 1.0)
        for y in ys:
            y["disapere"] = 1
        train.append((i, [(r.texts, ys)]))
    for rec in read_jsonl(s_path):
        if int(rec["id"]) % 5 != 0:
            train.append((100_000 + int(rec["id"]), substan_variants(rec)))
    cv = None
    c, cwt = a.c, a.disapere_claim_weight
    data = rows(enc, train, cwt)
    if a.vector_cache is not None and not cache:
        saved = enc._cache.items()
        np.savez(
            a.vector_cache,
            texts=np.array([t for t, _ in saved]),
            vectors=np.vstack([v for _, v in saved]),
        )
    if a.cv:
        grid = [tuple(float(v) for v in g.split(":")) for g in a.cv.split(",")]
        cv = cross_validate(enc, train, grid)  # type: ignore[arg-type]
        c, cwt = choose(cv)
        data = rows(enc, train, cwt)
    x, y, w, _, _ = data["role"]
    role = fit_role(x, y, w, c)
    from sklearn.linear_model import LogisticRegression

    xm, ym, _ = data["mixed"]
    mixed = LogisticRegression(C=c, max_iter=3000, class_weight=dict(enumerate(MIXED_WEIGHTS)))
    mixed.fit(xm, ym)

    a.out.mkdir(parents=True, exist_ok=True)
    if a.out.resolve() != a.encoder.resolve():
        for f in (ENCODER_FILE, TOKENIZER_FILE):
            shutil.copyfile(a.encoder / f, a.out / f)
    with np.load(a.encoder / ENCODER_HEADS, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["head.role.weight"], arrays["head.role.bias"] = _as_softmax(role)
    arrays["head.mixed.weight"], arrays["head.mixed.bias"] = _as_softmax(mixed)
    np.savez_compressed(a.out / ENCODER_HEADS, **arrays)
    meta = json.loads((a.encoder / ENCODER_META).read_text("utf-8"))
    meta["classes"] = {**meta["classes"], "role": ROLE_CLASSES, "mixed": MIXED_CLASSES}
    meta["heads_refit"] = HEADS_REFIT
    (a.out / ENCODER_META).write_text(json.dumps(meta, indent=1) + "\n")
    report = evaluate(a.out, d_dev, s_dev)
    report.update(mixed_dev(a.out, s_path))
    report["training"] = {
        "role_rows": int(len(y)),
        "mixed_rows": int(len(ym)),
        "C": c,
        "disapere_claim_weight": cwt,
        "mixed_class_weights": list(MIXED_WEIGHTS),
    }
    if cv is not None:
        report["cv"] = cv
    (a.out / "encoder_dev_report.json").write_text(
        json.dumps(report, indent=1, sort_keys=True) + "\n"
    )
    report["seconds"] = round(time.time() - t0)
    print(json.dumps(report, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

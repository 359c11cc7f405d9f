"""Can the DoA encoder batch sentences and keep each vector a function of its text alone?

The shipped graph (``encoder.onnx``) quantises activations per run (onnxruntime dynamic int8,
one scale per tensor), so the judge runs one sentence per run. This script builds the candidate
that would make batching row-independent without retraining: the same int8 weights, each
``DynamicQuantizeLinear`` replaced by a **per-row** (per-token) symmetric quantisation, and the
attention mask put back before every softmax so padded rows can share a run. Every sentence is
padded to a fixed bucket (a multiple of ``--bucket`` word pieces), alone or in a batch, so only
the number of rows changes between the two. It then measures, on DISAPERE dev's sentences:

* thread CPU time of the shipped graph, one sentence per run (what the judge does);
* the candidate one sentence per run, and in batches of one bucket (up to 8 / 16 / 32 rows);
* whether a batched row is bit-identical to the same sentence run alone, and the cosine of the
  candidate's vectors to the shipped ones.

``--fused-scale`` multiplies the row scale into the same ``Mul`` as the weight scale (the
layout onnxruntime's quantiser writes); onnxruntime's ``MatMulIntegerToFloat`` fusion then
reads the [rows, 1] scale wrongly and the vectors fall apart (cosine to the shipped graph
printed), so the default keeps the two multiplications apart.

    .venv/bin/pip install onnx      # or the [train] extra
    .venv/bin/python benchmarks/bench_encoder_batching.py [--bucket 8] [--fused-scale]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from prism_review.judge.depth.data import load_disapere
from prism_review.judge.depth.encoder import load_encoder
from prism_review.shared_folder import DATA


def per_row_graph(src: Path, dst: Path, *, fused_scale: bool = False) -> None:
    """``src`` with per-row activation quantisation and an additive padding mask."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    m = onnx.load(str(src))
    g = m.graph
    c = {"rq_127": 127.0, "rq_128": 128.0, "rq_tiny": 1e-30, "mk_1": 1.0, "mk_big": 1e30}
    g.initializer.extend(numpy_helper.from_array(np.array(v, np.float32), k) for k, v in c.items())
    g.initializer.extend([numpy_helper.from_array(np.array(128, np.uint8), "rq_zp"),
                          numpy_helper.from_array(np.array([1, 2], np.int64), "mk_axes")])
    new = [  # (mask - 1) * 1e30 as [b, 1, 1, t], added to the attention scores
        helper.make_node("Cast", ["mask"], ["mk_f"], to=TensorProto.FLOAT),
        helper.make_node("Sub", ["mk_f", "mk_1"], ["mk_m1"]),
        helper.make_node("Mul", ["mk_m1", "mk_big"], ["mk_add2"]),
        helper.make_node("Unsqueeze", ["mk_add2", "mk_axes"], ["mk_add"]),
    ]
    row_scales = {n.output[1] for n in g.node if n.op_type == "DynamicQuantizeLinear"}
    scale_of: dict[str, tuple[str, str]] = {}
    for k, n in enumerate(g.node):
        p = f"rq{k}_"
        if n.op_type == "DynamicQuantizeLinear":  # x → round(x · 127 / max|x_row|) + 128
            x, (xq, xs, xzp) = n.input[0], n.output
            new += [
                helper.make_node("Abs", [x], [p + "abs"]),
                helper.make_node("ReduceMax", [p + "abs"], [p + "max"], axes=[-1], keepdims=1),
                helper.make_node("Max", [p + "max", "rq_tiny"], [p + "m"]),
                helper.make_node("Div", [p + "m", "rq_127"], [xs]),
                helper.make_node("Div", ["rq_127", p + "m"], [p + "inv"]),
                helper.make_node("Mul", [x, p + "inv"], [p + "q0"]),
                helper.make_node("Round", [p + "q0"], [p + "q1"]),
                helper.make_node("Add", [p + "q1", "rq_128"], [p + "q2"]),
                helper.make_node("Cast", [p + "q2"], [xq], to=TensorProto.UINT8),
                helper.make_node("Identity", ["rq_zp"], [xzp]),
            ]
        elif n.op_type == "Mul" and n.input[0] in row_scales and not fused_scale:
            scale_of[n.output[0]] = (n.input[0], n.input[1])  # row scale × weight scale: split
        elif n.op_type == "Mul" and n.input[1] in scale_of:
            xs, ws = scale_of[n.input[1]]
            new += [helper.make_node("Mul", [n.input[0], ws], [n.output[0] + "_w"]),
                    helper.make_node("Mul", [n.output[0] + "_w", xs], [n.output[0]])]
        elif n.op_type == "Softmax":
            new.append(helper.make_node("Add", [n.input[0], "mk_add"], [n.input[0] + "_masked"]))
            n.input[0] = n.input[0] + "_masked"
            new.append(n)
        else:
            new.append(n)
    del g.node[:]
    g.node.extend(new)
    del g.value_info[:]
    onnx.checker.check_model(m)
    onnx.save(m, str(dst))


def session(path: Path):  # type: ignore[no-untyped-def]
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.intra_op_num_threads = o.inter_op_num_threads = 1
    o.log_severity_level = 3
    return ort.InferenceSession(str(path), o, providers=["CPUExecutionProvider"])


def encode(s, seqs: list[list[int]], pad, max_rows: int = 1) -> tuple[np.ndarray, float]:  # type: ignore[no-untyped-def]
    """Vectors of ``seqs`` (runs of at most ``max_rows`` rows of one padded length), CPU s."""
    out: list[np.ndarray | None] = [None] * len(seqs)
    groups: dict[int, list[int]] = {}
    for i, q in enumerate(seqs):
        groups.setdefault(pad(len(q)), []).append(i)
    t = time.thread_time()
    for length, idx in groups.items():
        for j in range(0, len(idx), max_rows):
            part = idx[j : j + max_rows]
            x = np.zeros((len(part), length), np.int64)
            m = np.zeros_like(x)
            for r, i in enumerate(part):
                x[r, : len(seqs[i])], m[r, : len(seqs[i])] = seqs[i], 1
            for r, v in zip(part, s.run(None, {"ids": x, "mask": m})[0], strict=True):
                out[r] = v
    return np.vstack(out), time.thread_time() - t  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bucket", type=int, default=8, help="pad every sentence to a multiple of this")
    ap.add_argument("--fused-scale", action="store_true", help="the fused layout (wrong vectors)")
    ap.add_argument("--file", type=Path, default=DATA / "labels" / "disapere" / "dev.jsonl")
    args = ap.parse_args()
    enc = load_encoder()
    texts = list(dict.fromkeys(t for r in load_disapere(args.file) for t in r.texts))
    seqs = [enc.tokenizer.encode(t).ids for t in texts]
    bucket = lambda n: -(-n // args.bucket) * args.bucket  # noqa: E731
    exact = lambda n: n  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        cand_path = Path(tmp) / "per_row.onnx"
        per_row_graph(enc.path / "encoder.onnx", cand_path, fused_scale=args.fused_scale)
        shipped, cand = session(enc.path / "encoder.onnx"), session(cand_path)
        print(f"load average {os.getloadavg()[0]:.1f}; {len(seqs)} distinct DISAPERE dev sentences, "
              f"{np.mean([len(q) for q in seqs]):.1f} word pieces on average")
        ref, c0 = encode(shipped, seqs, exact)
        alone, c1 = encode(cand, seqs, bucket)
        cos = (ref * alone).sum(1) / np.linalg.norm(ref, axis=1) / np.linalg.norm(alone, axis=1)
        print(f"shipped, one sentence per run: {c0:.2f} s CPU")
        print(f"per-row int8, one per run (padded to {args.bucket}s): {c1:.2f} s CPU ({c1 / c0:.2f}×); "
              f"cosine to shipped mean {cos.mean():.4f}, min {cos.min():.4f}")
        for rows in (8, 16, 32):
            got, c = encode(cand, seqs, bucket, rows)
            same = got.tobytes() == alone.tobytes()
            print(f"per-row int8, batches of ≤ {rows}: {c:.2f} s CPU ({c / c0:.2f}×); rows bit-identical "
                  f"to alone: {same}" + ("" if same else f" (max abs diff {np.abs(got - alone).max():.2g})"))


if __name__ == "__main__":
    main()

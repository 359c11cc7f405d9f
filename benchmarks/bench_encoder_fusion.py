"""Does offline transformer fusion make the DoA encoder faster? (issue 12, branch ``enc-fuse``)

onnxruntime's runtime optimiser fuses ``SkipLayerNormalization``, ``Gelu`` and the int8
``DynamicQuantizeMatMul`` by itself, but only the offline
``onnxruntime.transformers.optimizer.optimize_model`` builds the fused ``Attention`` contrib op
(one QKV product, quantised to ``QAttention``) and ``EmbedLayerNormalization``. No fp32 graph
is shipped, so this script:

1. **reconstructs the fp32 graph** from the shipped ``encoder.onnx``: every
   ``DynamicQuantizeLinear → MatMulInteger → Cast → Mul`` becomes ``MatMul`` with the weight
   ``(w_int8 − zero_point) × scale`` (per output channel), every quantised embedding
   ``Gather → DequantizeLinear`` a ``Gather`` of the dequantised table. It checks that
   re-quantising that graph with the judge's quantiser (onnxruntime dynamic, QInt8, per channel,
   as ``onnx_post.post_process``) gives back **every initialiser bit for bit** and bit-identical
   vectors, so the reconstruction is the graph the shipped one was made from (mask terms folded);
2. **prepares it for the BERT fusion**: torch's SDPA export scales q and k by d^-1/4 each,
   which the attention matcher does not know, so the two ``Mul``s become one ``Div`` by √d after
   ``q·kᵀ``; the identity ``Reshape`` between softmax·V and the head transpose is dropped;
3. **fuses** (``optimize_model(model_type="bert", num_heads=12, hidden_size=384)``, exact erf
   GELU, no FastGelu approximation) and **quantises** each candidate dynamically;
4. **measures** thread CPU time per sentence, one sentence per run (as the judge runs), in
   alternating passes over the distinct DISAPERE dev sentences, and each candidate's vectors
   against the shipped ones and the fp32 reconstruction (cosine mean/min, max abs difference).

Candidates: the fused graph quantised u8s8 (QInt8 weights) and u8u8 (QUInt8), per channel and
per tensor, with and without ``reduce_range``; the fused graph with its ``Attention`` left fp32;
``MultiHeadAttention`` (separate Q/K/V products) instead of ``Attention``; fusion without the
attention or without the embedding layer norm; the unfused graph re-quantised u8u8 / per tensor
/ reduce_range; and the prepared (rescaled) unfused graph.

    .venv/bin/pip install onnx sympy      # fusion needs sympy (symbolic shape inference)
    .venv/bin/python benchmarks/bench_encoder_fusion.py [--rounds 4] [--only NAME ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import collections
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.judge.depth.data import load_disapere
from prism_review.judge.depth.encoder import load_encoder
from prism_review.shared_folder import DATA

QSUFFIX = "_quantized"


def dequantise(src: Path, dst: Path) -> int:
    """The fp32 graph behind a dynamically quantised ``src``; returns the weights dequantised."""
    import onnx
    from onnx import helper, numpy_helper

    m = onnx.load(str(src))
    g = m.graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers: dict[str, list[Any]] = collections.defaultdict(list)
    for n in g.node:
        for i in n.input:
            consumers[i].append(n)

    def deq(wq: str) -> tuple[str, np.ndarray]:
        base = wq[: -len(QSUFFIX)]
        w = init[wq].astype(np.float32) - init[base + "_zero_point"].astype(np.float32)
        return base, (w * init[base + "_scale"].astype(np.float32)).astype(np.float32)

    replace: dict[int, Any] = {}
    drop: set[int] = set()
    weights: dict[str, np.ndarray] = {}
    for n in g.node:
        if n.op_type == "MatMulInteger":  # x_q · w_q → Cast → Mul(x_scale · w_scale)
            quant = producer[n.input[0]]
            (cast,) = consumers[n.output[0]]
            (mul,) = consumers[cast.output[0]]
            scales = producer[mul.input[1]]
            if (quant.op_type, cast.op_type, mul.op_type, scales.op_type) != (
                "DynamicQuantizeLinear", "Cast", "Mul", "Mul"
            ):
                raise ValueError(f"{n.name}: not onnxruntime's dynamic quantisation pattern")
            base, w = deq(n.input[1])
            weights[base] = w
            replace[id(n)] = helper.make_node("MatMul", [quant.input[0], base], [mul.output[0]])
            drop |= {id(cast), id(mul), id(scales), id(quant)}
        elif n.op_type == "DequantizeLinear" and n.input[0].endswith(QSUFFIX):
            gather = producer[n.input[0]]  # quantised embedding table
            base, w = deq(gather.input[0])
            weights[base] = w
            replace[id(gather)] = helper.make_node("Gather", [base, gather.input[1]], [n.output[0]])
            drop.add(id(n))
    nodes = [replace.get(id(n), n) for n in g.node if id(n) not in drop]
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in nodes for i in n.input}
    kept = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept + [numpy_helper.from_array(w, k) for k, w in weights.items()])
    del g.value_info[:]
    m.producer_name = "pytorch"  # what the graph was before quantisation (the optimiser checks)
    onnx.checker.check_model(m)
    onnx.save(m, str(dst))
    return len(weights)


def prepare_for_fusion(src: Path, dst: Path) -> None:
    """``src`` with q·kᵀ scaled by one ``Div`` (√d) and the identity head ``Reshape`` removed."""
    import onnx
    from onnx import helper, numpy_helper

    from prism_review.training.onnx_post import _constant

    m = onnx.load(str(src))
    g = m.graph
    producer = {o: n for n in g.node for o in n.output}
    consumers: dict[str, list[Any]] = collections.defaultdict(list)
    for n in g.node:
        for i in n.input:
            consumers[i].append(n)
    rename: dict[str, str] = {}
    drop: set[int] = set()
    after: dict[int, Any] = {}
    for n in g.node:
        if n.op_type != "Softmax":
            continue
        qk = producer[n.input[0]]
        scale = 1.0
        for k in (0, 1):  # q · d^-1/4 and k · d^-1/4
            mul = producer[qk.input[k]]
            s = _constant(m, mul.input[1]) if mul.op_type == "Mul" else None
            if s is None or s.size != 1:
                raise ValueError(f"{qk.name}: no constant scaling of q and k")
            scale *= float(s.reshape(-1)[0])
            rename[mul.output[0]] = mul.input[0]
            drop.add(id(mul))
        sqrt_d = qk.output[0] + "_sqrt_d"
        g.initializer.append(numpy_helper.from_array(np.array(1.0 / scale, np.float32), sqrt_d))
        after[id(qk)] = helper.make_node("Div", [qk.output[0], sqrt_d], [qk.output[0] + "_scaled"])
        n.input[0] = qk.output[0] + "_scaled"
        (pv,) = [c for c in consumers[n.output[0]] if c.op_type == "MatMul"]
        # to the 4-d shape read from its own input (a Shape of it): an identity
        reshapes = [c for c in consumers[pv.output[0]] if c.op_type == "Reshape"]
        if len(reshapes) != 1:
            raise ValueError(f"{pv.name}: expected the identity Reshape after softmax·V")
        (reshape,) = reshapes
        rename[reshape.output[0]] = pv.output[0]
        drop.add(id(reshape))
    nodes = []
    for n in g.node:
        if id(n) in drop:
            continue
        for i, name in enumerate(n.input):
            n.input[i] = rename.get(name, name)
        nodes.append(n)
        if id(n) in after:
            nodes.append(after[id(n)])
    outputs = {o.name for o in g.output}
    while True:  # the dropped Reshape's shape chain
        used = {i for n in nodes for i in n.input} | outputs
        alive = [n for n in nodes if any(o in used for o in n.output)]
        if len(alive) == len(nodes):
            break
        nodes = alive
    del g.node[:]
    g.node.extend(nodes)
    onnx.save(m, str(dst))


def fuse(src: Path, dst: Path, **options: Any) -> dict[str, int]:
    """``optimize_model`` (BERT, 12 heads, 384) with exact GELU; returns the fused op counts."""
    import onnx
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    opts = FusionOptions("bert")
    opts.enable_gelu_approximation = False
    for k, v in options.items():
        setattr(opts, k, v)
    om = optimize_model(
        str(src), model_type="bert", num_heads=12, hidden_size=384,
        optimization_options=opts, opt_level=0, use_gpu=False,
    )
    if not any(o.domain == "com.microsoft" for o in om.model.opset_import):
        om.model.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
    # the quantiser needs shapes of the contrib ops' outputs, which onnx's inference lacks
    onnx.save(SymbolicShapeInference.infer_shapes(om.model, auto_merge=True), str(dst))
    return {k: v for k, v in om.get_fused_operator_statistics().items() if v}


def quantise(src: Path, dst: Path, *, weights: str = "s8", per_channel: bool = True,
             reduce_range: bool = False, ops: list[str] | None = None) -> None:
    """onnxruntime dynamic quantisation (activations u8) with the given weight settings."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from prism_review.training.onnx_post import fold_full_mask

    wt = QuantType.QInt8 if weights == "s8" else QuantType.QUInt8
    quantize_dynamic(str(src), str(dst), weight_type=wt, per_channel=per_channel,
                     reduce_range=reduce_range, op_types_to_quantize=ops)
    import onnx

    m = onnx.load(str(dst))
    if fold_full_mask(m):  # none expected: the shipped graph's mask terms are already gone
        onnx.save(m, str(dst))


def session(path: Path) -> Any:
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.intra_op_num_threads = o.inter_op_num_threads = 1
    o.log_severity_level = 3
    return ort.InferenceSession(str(path), o, providers=["CPUExecutionProvider"])


def encode(s: Any, seqs: list[list[int]]) -> tuple[np.ndarray, float]:
    """One run per sentence (the judge's way); vectors and thread CPU seconds."""
    out = []
    t = time.thread_time()
    for q in seqs:
        x = np.asarray([q], np.int64)
        out.append(s.run(None, {"ids": x, "mask": np.ones_like(x)})[0][0])
    return np.vstack(out), time.thread_time() - t


def agreement(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    return {"cos_mean": float(cos.mean()), "cos_min": float(cos.min()),
            "max_abs": float(np.abs(a - b).max())}


def initialisers(path: Path) -> dict[str, bytes]:
    import onnx
    from onnx import numpy_helper

    out = {}
    for i in onnx.load(str(path)).graph.initializer:
        a = numpy_helper.to_array(i)
        out[i.name] = a.dtype.str.encode() + str(a.shape).encode() + a.tobytes()
    return out


def candidates(d: Path) -> dict[str, Callable[[Path], None]]:
    """name → builder of that graph at the given path (from the graphs in ``d``)."""
    fp32, prep = d / "fp32.onnx", d / "prepared.onnx"
    fused: dict[str, Path] = {}

    def fused_graph(tag: str, **opts: Any) -> Path:
        if tag not in fused:
            fused[tag] = d / f"fused_{tag}.fp32.onnx"
            print(f"  fusion {tag}: {fuse(prep, fused[tag], **opts)}")
        return fused[tag]

    c: dict[str, Callable[[Path], None]] = {
        "fused u8s8 per-channel (as onnx_post)": lambda p: quantise(fused_graph("all"), p),
        "fused u8s8 per-tensor": lambda p: quantise(fused_graph("all"), p, per_channel=False),
        "fused u8u8 per-channel": lambda p: quantise(fused_graph("all"), p, weights="u8"),
        "fused u8u8 per-tensor": lambda p: quantise(fused_graph("all"), p, weights="u8", per_channel=False),
        "fused u8s8 per-channel reduce_range": lambda p: quantise(fused_graph("all"), p, reduce_range=True),
        "fused, Attention left fp32": lambda p: quantise(fused_graph("all"), p, ops=["MatMul"]),
        "fused, MultiHeadAttention (Q/K/V apart)": lambda p: quantise(
            fused_graph("mha", use_multi_head_attention=True, enable_embed_layer_norm=False), p),
        "fused without attention": lambda p: quantise(fused_graph("noattn", enable_attention=False), p),
        "fused without EmbedLayerNorm": lambda p: quantise(
            fused_graph("noemb", enable_embed_layer_norm=False), p),
        "prepared (rescaled), unfused": lambda p: quantise(prep, p),
        "unfused u8u8 per-channel": lambda p: quantise(fp32, p, weights="u8"),
        "unfused u8s8 per-tensor": lambda p: quantise(fp32, p, per_channel=False),
        "unfused u8s8 per-channel reduce_range": lambda p: quantise(fp32, p, reduce_range=True),
    }
    return c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4, help="alternating passes per graph")
    ap.add_argument("--only", nargs="*", help="candidate names containing any of these words")
    ap.add_argument("--keep", type=Path, help="write the graphs here instead of a temporary folder")
    ap.add_argument("--file", type=Path, default=DATA / "labels" / "disapere" / "dev.jsonl")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the quantiser's pre-processing advice
    enc = load_encoder()
    shipped = enc.path / "encoder.onnx"
    texts = list(dict.fromkeys(t for r in load_disapere(args.file) for t in r.texts))
    seqs = [enc.tokenizer.encode(t).ids for t in texts]
    with tempfile.TemporaryDirectory() as tmp:
        d = args.keep or Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        n = dequantise(shipped, d / "fp32.onnx")
        quantise(d / "fp32.onnx", d / "requantised.onnx")
        a, b = initialisers(shipped), initialisers(d / "requantised.onnx")
        same = a == b
        ref, _ = encode(session(shipped), seqs)
        req, _ = encode(session(d / "requantised.onnx"), seqs)
        f32, _ = encode(session(d / "fp32.onnx"), seqs)
        print(f"{n} weights dequantised; re-quantised initialisers identical to shipped: {same} "
              f"({len(a)}); vectors bit-identical: {ref.tobytes() == req.tobytes()}")
        print(f"fp32 reconstruction vs shipped: {agreement(ref, f32)}")
        prepare_for_fusion(d / "fp32.onnx", d / "prepared.onnx")
        prep, _ = encode(session(d / "prepared.onnx"), seqs)
        print(f"prepared fp32 vs fp32: {agreement(f32, prep)}")
        graphs = {"shipped": shipped}
        for name, build in candidates(d).items():
            if args.only and not any(w in name for w in args.only):
                continue
            p = d / (name.replace(" ", "_").replace(",", "").replace("/", "") + ".onnx")
            build(p)
            graphs[name] = p
        sessions = {k: session(p) for k, p in graphs.items()}
        for s in sessions.values():
            encode(s, seqs[:200])  # warm-up
        print(f"load average {os.getloadavg()[0]:.1f}; {len(seqs)} distinct sentences, "
              f"{np.mean([len(q) for q in seqs]):.1f} word pieces on average; {args.rounds} rounds")
        cpu: dict[str, list[float]] = {k: [] for k in sessions}
        vec: dict[str, np.ndarray] = {}
        for r in range(args.rounds):
            order = list(sessions) if r % 2 == 0 else list(sessions)[::-1]
            for k in order:
                vec[k], c = encode(sessions[k], seqs)
                cpu[k].append(c)
            print(f"  round {r + 1}: load average {os.getloadavg()[0]:.1f}", flush=True)
        base = statistics.median(cpu["shipped"])
        print("| graph | nodes | CPU per sentence (median of passes) | vs shipped | cosine to shipped "
              "mean / min | max abs diff | cosine to fp32 mean / min |")
        print("|---|---|---|---|---|---|---|")
        import onnx

        for k, p in graphs.items():
            med = statistics.median(cpu[k])
            s, f = agreement(ref, vec[k]), agreement(f32, vec[k])
            print(f"| {k} | {len(onnx.load(str(p)).graph.node)} | {1000 * med / len(seqs):.2f} ms | "
                  f"{med / base:.2f}× | {s['cos_mean']:.4f} / {s['cos_min']:.4f} | {s['max_abs']:.3g} | "
                  f"{f['cos_mean']:.4f} / {f['cos_min']:.4f} |")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()

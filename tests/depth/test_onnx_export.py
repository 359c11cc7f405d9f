"""The shared int8 ONNX export (training/onnx_export.py) that the DoA encoder and the novelty
embedder both go through: the graph keeps the signature the runtimes feed (ids, mask → vec) and
reproduces torch's mean-pooled vectors. Needs the ``train`` extra; skipped without it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")


class _Tok:
    """A whitespace tokenizer with transformers' call shape (ids from a fixed vocabulary)."""

    vocab = {w: i + 1 for i, w in enumerate(["a", "sentence", "to", "trace", "another", "short", "one"])}

    def __call__(self, texts: list[str], padding: bool = True, return_tensors: str = "pt"):
        ids = [[self.vocab.get(w, 0) for w in t.split()] for t in texts]
        n = max(map(len, ids))
        pad = [row + [0] * (n - len(row)) for row in ids]
        mask = [[1] * len(row) + [0] * (n - len(row)) for row in ids]
        return {"input_ids": torch.tensor(pad), "attention_mask": torch.tensor(mask)}


def _tiny_bert():
    cfg = transformers.BertConfig(
        vocab_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
    )
    torch.manual_seed(0)
    return transformers.BertModel(cfg).eval()


def test_export_keeps_signature_and_pooled_vectors(tmp_path: Path) -> None:
    import onnxruntime as ort

    from prism_review.training.onnx_export import (
        INPUT_NAMES,
        OUTPUT_NAME,
        export_pooled_int8,
        pooled,
    )

    enc = _tiny_bert()
    seqs = ([1, 2, 3], [4, 5, 6, 7, 1, 2])
    with torch.no_grad():  # torch's reference, before tracing (the export alters the module)
        refs = [pooled(enc)(torch.tensor([ids]), torch.ones(1, len(ids), dtype=torch.long)).numpy()
                for ids in seqs]
    out = tmp_path / "enc.onnx"
    fp32 = export_pooled_int8(enc, _Tok(), out, keep_fp32=True)
    assert out.exists() and fp32 is not None and fp32.exists()
    int8 = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    full = ort.InferenceSession(str(fp32), providers=["CPUExecutionProvider"])
    for sess in (int8, full):
        assert [i.name for i in sess.get_inputs()] == list(INPUT_NAMES)
        assert [o.name for o in sess.get_outputs()] == [OUTPUT_NAME]
    # the int8 graph's weights are quantised (integer matrix products)
    import onnx

    ops = {n.op_type for n in onnx.load(str(out)).graph.node}
    assert ops & {"MatMulInteger", "DynamicQuantizeLinear"}
    # one sentence per run (the runtimes' way), at lengths other than the traced ones: the fp32
    # graph is torch's encoder + mean pooling
    for ids, ref in zip(seqs, refs, strict=True):
        x = np.asarray([ids], dtype=np.int64)
        got = full.run(None, {"ids": x, "mask": np.ones_like(x)})[0]
        q = int8.run(None, {"ids": x, "mask": np.ones_like(x)})[0]
        assert got.shape == q.shape == (1, 32)
        np.testing.assert_allclose(got, ref, atol=1e-4)

def test_export_drops_fp32_graph_by_default(tmp_path: Path) -> None:
    from prism_review.training.onnx_export import export_pooled_int8

    assert export_pooled_int8(_tiny_bert(), _Tok(), tmp_path / "g.onnx") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.onnx"]

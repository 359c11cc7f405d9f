"""The post-processing that turns an exported encoder graph into the judge's graph.

Built on small synthetic graphs in the shape torch exports (attention mask turned into
``Where(mask, 0, -inf)`` added to the scores, softmax guarded by ``Where(IsNaN(p), 0, p)``),
so the tests do not depend on the shipped artefacts; ``onnx`` is the ``train`` extra's.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from prism_review.training.onnx_post import (  # noqa: E402
    fold_full_mask,
    is_quantised,
    post_process,
    run_vectors,
)

TOKENIZER = Path(str(resources.files("prism_review") / "resources/models/depth/tokenizer.json"))
TEXTS = ["The method is not compared to Smith et al.", "Why?", "Table 2 lacks error bars; see Eq. 3."]
V, D = 30522, 8


def _const(name: str, value: float) -> object:
    return helper.make_node(
        "Constant", [], [name], value=helper.make_tensor(name + "_t", TensorProto.FLOAT, [], [value])
    )


def _graph(path: Path, *, cond_from_mask: bool = True) -> Path:
    rng = np.random.default_rng(0)
    emb = numpy_helper.from_array(rng.normal(size=(V, D)).astype(np.float32), "emb")
    w = numpy_helper.from_array(rng.normal(size=(D, D)).astype(np.float32), "w")
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["x0"]),  # (1, T, D)
        helper.make_node("MatMul", ["x0", "w"], ["x"]),  # a weight product to quantise
        helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["x", "xt"], ["scores"]),  # (1, T, T)
        helper.make_node("Constant", [], ["axes"], value=numpy_helper.from_array(np.array([1], np.int64))),
        _const("zero", 0.0),
        _const("ninf", float("-inf")),
        _const("zero2", 0.0),
    ]
    if cond_from_mask:
        nodes += [
            helper.make_node("Unsqueeze", ["mask", "axes"], ["m3"]),
            helper.make_node("Cast", ["m3"], ["cond"], to=TensorProto.BOOL),
        ]
    else:  # a "mask" that really masks: folding it away changes the vectors
        nodes += [
            helper.make_node("Constant", [], ["lim"], value=numpy_helper.from_array(np.array(3000, np.int64))),
            helper.make_node("Greater", ["ids", "lim"], ["g"]),
            helper.make_node("Unsqueeze", ["g", "axes"], ["cond"]),
        ]
    nodes += [
        helper.make_node("Where", ["cond", "zero", "ninf"], ["madd"]),
        helper.make_node("Add", ["scores", "madd"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero2", "p"], ["pg"]),
        helper.make_node("MatMul", ["pg", "x"], ["h"]),
        helper.make_node("ReduceMean", ["h"], ["vec"], axes=[1], keepdims=0),
    ]
    g = helper.make_graph(
        nodes,
        "tiny",
        [
            helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "t"]),
            helper.make_tensor_value_info("mask", TensorProto.INT64, [1, "t"]),
        ],
        [helper.make_tensor_value_info("vec", TensorProto.FLOAT, [1, D])],
        initializer=[emb, w],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _ids() -> list[list[int]]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(TOKENIZER))
    return [tok.encode(t).ids for t in TEXTS]


def test_fold_removes_the_mask_terms_and_keeps_every_bit(tmp_path: Path) -> None:
    src = _graph(tmp_path / "src.onnx")
    model = onnx.load(str(src))
    removed = fold_full_mask(model)
    ops = [n.op_type for n in model.graph.node]
    assert "IsNaN" not in ops and "Where" not in ops and "Add" not in ops
    assert removed >= 6  # Add, guard Where, and the dead chain: mask Where, Cast, Unsqueeze, IsNaN
    onnx.save(model, str(tmp_path / "folded.onnx"))
    a = run_vectors(src, _ids())
    b = run_vectors(tmp_path / "folded.onnx", _ids())
    assert a.tobytes() == b.tobytes()
    assert fold_full_mask(model) == 0  # nothing left to fold


def test_post_process_quantises_an_fp32_export(tmp_path: Path) -> None:
    src = _graph(tmp_path / "fp32.onnx")
    assert not is_quantised(onnx.load(str(src)))
    report = post_process(src, tmp_path / "out.onnx", tokenizer=TOKENIZER, max_length=64, texts=TEXTS)
    out = onnx.load(str(tmp_path / "out.onnx"))
    assert is_quantised(out)
    assert report["quantised"].startswith("onnxruntime dynamic int8")
    assert report["mask_nodes_removed"] >= 6 and report["folding_check"] == "bit-identical vectors"
    assert 0.9 < report["min_cosine_int8_vs_fp32"] <= 1.0
    # re-applied to its own output: kept as int8, nothing more to fold, same vectors
    again = post_process(tmp_path / "out.onnx", tmp_path / "again.onnx", tokenizer=TOKENIZER, max_length=64, texts=TEXTS)
    assert again["quantised"] == "already int8: kept" and again["mask_nodes_removed"] == 0
    assert (
        run_vectors(tmp_path / "out.onnx", _ids()).tobytes()
        == run_vectors(tmp_path / "again.onnx", _ids()).tobytes()
    )


def test_post_process_refuses_when_folding_would_change_vectors(tmp_path: Path) -> None:
    src = _graph(tmp_path / "masking.onnx", cond_from_mask=False)
    with pytest.raises(SystemExit, match="changed vectors"):
        post_process(src, tmp_path / "out.onnx", tokenizer=TOKENIZER, max_length=64, texts=TEXTS)
    assert not (tmp_path / "out.onnx").exists()


@pytest.mark.parametrize("rel", ["depth/encoder.onnx", "novelty/embedder.onnx"])
def test_shipped_graphs_are_post_processed(rel: str) -> None:
    path = Path(str(resources.files("prism_review") / "resources/models" / rel))
    model = onnx.load(str(path))
    assert is_quantised(model)
    assert fold_full_mask(model) == 0

"""Offline novelty against an index built from a (synthetic) PRISM corpus table: the verdicts read
the candidates' abstracts, so the same claim is judged differently against close and far prior work."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.pipelines.runner import EvalOptions, run_evaluation

PAPER = """Block-Sparse Attention for Long Documents

Abstract
We propose a block-sparse attention kernel that lets transformers read documents of tens of
thousands of tokens with memory that grows linearly with the length of the document.

1 Introduction
Self-attention is quadratic in the sequence length, so long documents are out of reach. We
introduce a sparse attention pattern over blocks of tokens for long document classification.

2 Method
Blocks attend to their neighbours.
"""

CORPUS = {
    "paper_id": ["longformer", "gan", "speech"],
    "venue": ["ICLR2024", "ICLR2024", "ICLR2024"],
    "decision": ["Accept (poster)", "Reject", "Reject"],
    "review_title": ["Longformer: the long-document transformer", "Attention deficits recorded in long-term care documents",
                     "Speech recognition with deep recurrent networks"],
    "grobid_title": ["", "", ""],
    "review_abstract": [
        "Transformer-based models cannot process long sequences because self-attention scales quadratically "
        "with the sequence length. We introduce an attention mechanism that scales linearly with sequence length, "
        "making it easy to process documents of thousands of tokens, with sparse local and global attention.",
        "Nurses documented attention deficits of elderly residents in long-term care homes; we review "
        "thousands of care documents and propose a block schedule of staff visits.",
        "Recurrent neural networks trained end to end with connectionist temporal classification transcribe "
        "audio into phonemes on the TIMIT benchmark.",
    ],
    "grobid_abstract": ["", "", ""],
    "bibliography_json": [None, None, None],
}


def _layout(root):
    venue = root / "ICLR2025"
    (venue / "papers").mkdir(parents=True)
    (venue / "papers" / "p1.txt").write_text(PAPER, encoding="utf-8")
    (venue / "my_reviewer").mkdir()
    review = {"paper_id": "p1", "reviewer_id": "R1", "sections": [
        {"name": "Strengths", "text": "The block-sparse attention for long documents is novel."}]}
    (venue / "my_reviewer" / "reviews.jsonl").write_text(json.dumps(review) + "\n", encoding="utf-8")
    return root


async def test_index_built_from_corpus_gives_abstract_informed_verdicts(tmp_path, monkeypatch):
    monkeypatch.setenv("PRISM_CACHE_DIR", str(tmp_path / "cache"))
    pq.write_table(pa.table(CORPUS), tmp_path / "papers.parquet")
    res = CliRunner().invoke(app, ["index", "build", "--corpus", str(tmp_path / "papers.parquet"),
                                   "--out", str(tmp_path / "index")])
    assert res.exit_code == 0, res.output
    assert "3 papers" in res.output
    data = _layout(tmp_path / "data")
    opts = EvalOptions(data=data, out=tmp_path / "run", dimensions=["novelty"], judge="offline",
                       settings={"index_dir": str(tmp_path / "index")})
    assert (await run_evaluation(opts)).units_failed == 0
    rows = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().split("\n") if x.strip()]
    (row,) = rows
    (verdict,) = row["extracted"]["verdicts"]
    assert verdict["stance"] == "novel"
    by_id = {e["related_paper_id"]: e for e in verdict["evidence_results"]}
    assert "longformer" in by_id and "gan" in by_id
    assert all("(title and abstract)" in e["explanation"] for e in by_id.values())
    # the close prior work tells against the claim of novelty; the one that only shares words
    # ("attention", "long", "documents", "block") bears it out
    assert by_id["longformer"]["score"] < by_id["gan"]["score"] == 2

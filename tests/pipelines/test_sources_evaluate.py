"""`prism evaluate --data` on the corpus table, a venue folder and an exported layout, and the
Ray engine: the same units give the same results whatever the source shape or the engine."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app

sys.path.insert(0, str(Path(__file__).parents[1] / "data"))
from data_shapes import corpus_row, write_corpus  # noqa: E402

DIMS = ["--dimension", "depth", "--dimension", "constructiveness"]


def _corpus(tmp_path: Path) -> Path:
    rows = [
        corpus_row("p1", "ICLR_2024", "Accept (oral)"),
        corpus_row("p2", "ICLR_2024", "Reject"),
        corpus_row("p4", "ICLR_2025", "Accept (poster)"),
        corpus_row("bad", "ICLR_2025", "Reject", reviews_json="{oops"),
    ]
    return write_corpus(tmp_path / "papers.parquet", rows)


def _evaluate(*args: str) -> Any:
    return CliRunner().invoke(app, ["evaluate", "--quiet", "--no-report", *DIMS, *args])


def _metrics(out: Path) -> dict[tuple[str, str], Any]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {(r["dimension"], r["unit_key"]): (r["status"], r["metrics"]) for r in rows}


def test_evaluate_corpus_parquet_then_export_layout_gives_the_same_results(tmp_path: Path) -> None:
    data = _corpus(tmp_path)
    res = _evaluate("--data", str(data), "--out", str(tmp_path / "direct"))
    assert res.exit_code == 1, res.output  # 1: the bad row is reported, the rest evaluated
    assert "reviews_json" in res.output and "input problem" in res.output
    direct = _metrics(tmp_path / "direct")
    assert {k[1].split("/")[1] for k in direct} == {"p1", "p2", "p4", "bad"} - {"bad"}
    assert len(direct) == 2 * 3 * 2  # 2 dimensions × 3 papers × 2 human reviews
    manifest = json.loads((tmp_path / "direct" / "manifest.json").read_text())
    assert manifest["source"] == "corpus"

    exp = CliRunner().invoke(app, ["data", "export-layout", str(data), "--out", str(tmp_path / "lay")])
    # the paper whose reviews are unreadable is exported without them (and the skip is said)
    assert exp.exit_code == 1 and "4 paper(s), 6 human review(s)" in exp.output, exp.output
    res2 = _evaluate("--data", str(tmp_path / "lay"), "--out", str(tmp_path / "via_layout"))
    assert res2.exit_code == 0, res2.output
    assert _metrics(tmp_path / "via_layout") == direct


def test_sample_restricts_the_papers(tmp_path: Path) -> None:
    data = _corpus(tmp_path)
    sample = tmp_path / "paper_ids_1_iclr2024.txt"
    sample.write_text("p2\n")
    res = _evaluate("--data", str(data), "--sample", str(sample), "--out", str(tmp_path / "o"))
    assert res.exit_code == 0, res.output
    assert {k[1].split("/")[1] for k in _metrics(tmp_path / "o")} == {"p2"}


def test_unreadable_data_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    res = _evaluate("--data", str(tmp_path / "x.parquet"), "--out", str(tmp_path / "o"))
    assert res.exit_code == 2
    assert "not a readable parquet file" in res.output and "Traceback" not in res.output


def test_unknown_engine_is_exit_2(tmp_path: Path) -> None:
    res = _evaluate("--engine", "spark", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "valid engines (closest first): ray, local" in res.output


def test_ray_engine_equals_local_unit_for_unit(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    data = _corpus(tmp_path)
    local = _evaluate("--data", str(data), "--out", str(tmp_path / "local"))
    assert local.exit_code == 1, local.output
    ray_run = _evaluate("--data", str(data), "--engine", "ray", "--out", str(tmp_path / "ray"))
    assert ray_run.exit_code == 1, ray_run.output
    assert _metrics(tmp_path / "ray") == _metrics(tmp_path / "local")
    # resuming on ray recomputes nothing and keeps the rows as they are
    again = _evaluate("--data", str(data), "--engine", "ray", "--out", str(tmp_path / "ray"))
    assert "12 resumed" in again.output, again.output
    assert _metrics(tmp_path / "ray") == _metrics(tmp_path / "local")


def test_ray_run_with_an_llm_judge_prints_the_workers_calls(llm_server, tmp_path: Path, monkeypatch) -> None:
    """The end-of-run line counts the calls the Ray workers made (the driver's own judge makes
    none, so it printed '0 model calls, ... 0 tokens' for a run that spent thousands)."""
    pytest.importorskip("ray")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    out = tmp_path / "ray"
    res = CliRunner().invoke(app, [
        "evaluate", "--judge", f"openai-compatible/test-model@{llm_server.base_url}",
        "--dimension", "depth", "--limit", "1", "--engine", "ray", "--no-cache",
        "--no-report", "--out", str(out),
    ])  # fmt: skip
    assert res.exit_code == 0, res.output
    calls = json.loads((out / "manifest.json").read_text())["totals"]["judge_stats"]["calls"]
    assert calls > 0
    assert f"{calls} model calls" in res.output

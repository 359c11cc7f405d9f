"""`prism evaluate --workers N`: the offline judge's units in worker processes give the results
of the in-process engine, unit for unit, and resume the same way."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from prism_review.cli import app

sys.path.insert(0, str(Path(__file__).parents[1] / "data"))
from data_shapes import corpus_row, write_corpus  # noqa: E402

DIMS = ["--dimension", "depth", "--dimension", "constructiveness"]


def _evaluate(*args: str) -> Any:
    return CliRunner().invoke(app, ["evaluate", "--quiet", "--no-report", *DIMS, *args])


def _rows(out: Path) -> dict[tuple[str, str, str], Any]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {(r["dimension"], r["unit_key"], r["reviewer_id"]): (r["status"], r["metrics"], r["extracted"])
            for r in rows}


def test_workers_equal_the_in_process_engine_unit_for_unit(tmp_path: Path) -> None:
    data = write_corpus(tmp_path / "papers.parquet", [
        corpus_row("p1", "ICLR_2024", "Accept (oral)"),
        corpus_row("p2", "ICLR_2024", "Reject"),
        corpus_row("bad", "ICLR_2025", "Reject", reviews_json="{oops"),
    ])  # fmt: skip
    local = _evaluate("--data", str(data), "--out", str(tmp_path / "local"))
    assert local.exit_code == 1, local.output  # 1: the bad row is reported
    pool = _evaluate("--data", str(data), "--workers", "2", "--out", str(tmp_path / "pool"))
    assert pool.exit_code == 1, pool.output
    assert len(_rows(tmp_path / "local")) == 2 * 2 * 2  # dimensions × papers × reviews
    assert _rows(tmp_path / "pool") == _rows(tmp_path / "local")
    again = _evaluate("--data", str(data), "--workers", "2", "--out", str(tmp_path / "pool"))
    assert "8 resumed" in again.output, again.output
    assert _rows(tmp_path / "pool") == _rows(tmp_path / "local")


def test_workers_need_the_offline_judge_and_the_local_engine(tmp_path: Path) -> None:
    res = _evaluate("--workers", "2", "--engine", "ray", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--workers" in res.output, res.output
    res = _evaluate("--workers", "0", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--workers" in res.output, res.output

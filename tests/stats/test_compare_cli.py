"""``prism compare`` through the CLI on a small results log written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import ResultRow
from prism_review.metrics import stats


def _row(pid: str, system: str, reviewer_id: str, unit_key: str, metrics: dict[str, float], **kw: Any) -> ResultRow:
    return ResultRow(dimension="constructiveness", venue="ICLR2024", paper_id=pid, system=system,
                     reviewer_id=reviewer_id, unit_key=unit_key, metrics=metrics, **kw)


def _write_log(path: Path) -> dict[str, list[float]]:
    """12 papers; human = 2 reviewers per paper, sea = 1 review; sea's mcs is higher."""
    rng = np.random.default_rng(7)
    rows = []
    truth: dict[str, list[float]] = {"human": [], "sea": []}
    for i in range(12):
        pid = f"p{i:02d}"
        meta = {"decision": "Accept (poster)" if i % 2 == 0 else "Reject", "avg_rating": float(i)}
        h = [round(float(rng.uniform(0.3, 0.5)), 4) for _ in range(2)]
        s = round(float(rng.uniform(0.55, 0.7)), 4)
        truth["human"].append(sum(h) / 2)
        truth["sea"].append(s)
        for k, v in enumerate(h, start=1):
            rows.append(_row(pid, "human", f"Human_{k}", f"{pid}/h{k}", {"mcs": v, "d5": 1.0}, meta=meta))
        rows.append(_row(pid, "sea", "SEA", f"{pid}/sea", {"mcs": s, "d5": 1.0}, meta=meta))
    # an unscored row must be ignored even though its metric looks extreme
    rows.append(_row("p00", "sea", "SEA2", "p00/bad", {"mcs": 100.0}, status="unscored"))
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    return truth


def test_compare_json(tmp_path: Path) -> None:
    truth = _write_log(tmp_path / "results.jsonl")
    res = CliRunner().invoke(
        app,
        [
            "compare",
            "--a",
            "sea",
            "--b",
            "human",
            "--run",
            str(tmp_path),
            "--json",
            "--n-bootstrap",
            "500",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)["dimensions"]["constructiveness"]
    m = out["per_metric"]["mcs"]
    assert out["n_papers"] == 12 and m["n_valid_pairs"] == 12
    assert m["mean_a"] == round(float(np.mean(truth["sea"])), 4)
    assert m["mean_b"] == round(float(np.mean(truth["human"])), 4)
    assert m["cliffs_delta"] == 1.0 and m["cliffs_delta_magnitude"] == "large"
    # all 12 differences positive: exact two-sided p = 2/2^12; Holm over 2 metrics, d5 p = 1
    assert m["wilcoxon_p"] == round(2 / 4096, 6)
    assert m["adjusted_p"] == round(2 * 2 / 4096, 6)
    assert out["summary"]["a_better"] == ["mcs"]
    ci = stats.bootstrap_ci(truth["sea"], truth["human"], n_bootstrap=500)
    assert m["bootstrap_95ci"] == ci
    dec = out["subgroups"]["by_decision"]
    assert dec["accept"]["n_papers"] == 6 and dec["reject"]["n_papers"] == 6


def test_compare_text_by_tier_and_errors(tmp_path: Path) -> None:
    _write_log(tmp_path / "results.jsonl")
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "compare",
            "--a",
            "sea",
            "--b",
            "human",
            "--run",
            str(tmp_path / "results.jsonl"),
            "--by",
            "tier",
            "--n-bootstrap",
            "200",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "mcs" in res.output and "large" in res.output
    assert "tier = top_25" in res.output and "tier = bottom_25" in res.output
    assert "sea better: mcs" in res.output  # Table-1 names (the system ids)
    bad = runner.invoke(
        app, ["compare", "--a", "sea", "--b", "human", "--run", str(tmp_path), "--by", "nope"]
    )
    assert bad.exit_code == 2
    missing = runner.invoke(
        app, ["compare", "--a", "x", "--b", "y", "--run", str(tmp_path / "none")]
    )
    assert missing.exit_code == 2

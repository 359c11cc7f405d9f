"""Through the CLI on a multi-venue PRISM layout with every built-in system: validate, evaluate
(all four dimensions, offline judge, per-venue tables), compare, report."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.pipelines.results import read_results
from prism_review.testing.layout_samples import write_layout

SYSTEMS = {"human", "sea", "reviewer2", "treereview", "deepreview", "cyclereview", "my_reviewer"}


def test_validate_evaluate_compare_report(tmp_path):
    root = write_layout(
        tmp_path / "data", {"ICLR2024": ["p1", "p2"], "ICML2025": ["m1"], "NeurIPS2025": ["n1"]}
    )
    runner = CliRunner()
    val = runner.invoke(app, ["data", "validate", str(root)])
    assert val.exit_code == 0, val.output

    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--by-venue", "--quiet"])
    assert res.exit_code == 0, res.output
    rows = read_results(out)
    assert {r.dimension for r in rows} >= {"depth", "novelty", "flaws", "constructiveness"}
    assert {r.venue for r in rows} == {"ICLR2024", "ICML2025", "NeurIPS2025"}
    for dim in ("depth", "constructiveness", "novelty"):
        assert {r.system for r in rows if r.dimension == dim} == SYSTEMS, dim
    # flaws pools every system's review with the humans: one pairing per system and paper
    pairings = {r.pairing for r in rows if r.dimension == "flaws" and r.system == "human"}
    assert pairings >= SYSTEMS - {"human"}
    ok = [r for r in rows if r.status == "ok"]
    assert len(ok) > 0.9 * len(rows)
    summary = (out / "summary.md").read_text()
    for heading in ("Table 1", "## ICLR2024", "## ICML2025", "## NeurIPS2025", "treereview", "deepreview"):
        assert heading in summary
    csv_lines = (out / "summary.csv").read_text().splitlines()
    assert csv_lines[0] == "dimension,venue,system,metric,label,mean,sd,n,mode,judge"
    assert any(line.startswith("depth,ICML2025,human,doa,") for line in csv_lines)
    assert all(line.endswith(",clean,offline") for line in csv_lines[1:])  # which mode made it
    html = (out / "report.html").read_text()
    assert "Browse reviews" in html and "data:image/png;base64" in html

    cmp = runner.invoke(app, ["compare", "--run", str(out), "--a", "sea", "--b", "human", "--json"])
    assert cmp.exit_code == 0, cmp.output
    assert json.loads(cmp.output)

    rep = runner.invoke(app, ["report", str(out), "--no-html"])
    assert rep.exit_code == 0 and "Table 1" in rep.output
    # the results log itself names the run too; the tables come with how to read them
    rep = runner.invoke(app, ["report", str(out / "results.jsonl"), "--no-html"])
    assert rep.exit_code == 0 and "Table 1" in rep.output, rep.output
    assert "How to read Table 1" in rep.output and "prism compare --run" in rep.output
    assert "How to read Table 1" in res.output  # evaluate prints it under Table 1 too
    bad = runner.invoke(app, ["report", str(out / "summary.csv")])
    assert bad.exit_code == 2 and "not a run's results.jsonl" in bad.output


def test_validate_partial_accepts_missing_system_folders(tmp_path):
    import shutil

    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    shutil.rmtree(root / "ICLR2024" / "sea")
    runner = CliRunner()
    strict = runner.invoke(app, ["data", "validate", str(root), "--complete"])
    assert strict.exit_code == 1 and "is missing" in strict.output
    assert runner.invoke(app, ["data", "validate", str(root)]).exit_code == 0  # evaluate runs on it
    assert runner.invoke(app, ["data", "validate", str(root), "--partial"]).exit_code == 0

"""``prism compare --runs A B``: agreement of two runs of the same systems.

Hand cases on logs written here (exact correlations, difference and ranking share known by
construction), then two real run folders made on the demo: the offline judge against the
schema-seeded loopback judge, and a run against itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import ResultRow
from prism_review.pipelines.pairing import group_name
from prism_review.testing.llm_server import LLMServer

SYSTEMS = ("sea", "deepreview", "cyclereview")


def _row(pid: str, system: str, mcs: float | None, **kw: Any) -> ResultRow:
    return ResultRow(dimension="constructiveness", venue="ICLR2024", paper_id=pid, system=system,
                     reviewer_id="LLM_Reviewer", unit_key=f"{pid}/{system}", metrics={"mcs": mcs}, **kw)


def _write(path: Path, rows: list[ResultRow]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in rows))
    return path


def _compare(a: Path, b: Path, *extra: str) -> dict[str, Any]:
    res = CliRunner().invoke(app, ["compare", "--runs", str(a), str(b), "--json", "--n-bootstrap", "200", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["dimensions"]


def test_linear_transform_agrees_perfectly_and_keeps_rankings(tmp_path):
    # A: system s has value base + s_offset on paper i; B = 2*A + 1 (a monotone, linear change)
    offsets = {"sea": 0.3, "deepreview": 0.2, "cyclereview": 0.1}
    rows_a, rows_b = [], []
    for i in range(6):
        for s, off in offsets.items():
            v = round(0.05 * i + off, 4)
            rows_a.append(_row(f"p{i}", s, v))
            rows_b.append(_row(f"p{i}", s, round(2 * v + 1, 4)))
    # rows that must not count: unscored in B, null in A
    rows_b.append(_row("p9", "sea", 50.0, status="unscored"))
    rows_a.append(_row("p9", "sea", 0.5))
    rows_a.append(_row("p8", "sea", None))
    rows_b.append(_row("p8", "sea", 0.7))
    out = _compare(_write(tmp_path / "a", rows_a), _write(tmp_path / "b", rows_b))
    m = out["constructiveness"]["metrics"]["mcs"]
    assert m["n_reviews"] == 18
    assert m["spearman"] == pytest.approx(1.0) and m["pearson"] == pytest.approx(1.0)
    xa = [r.metrics["mcs"] for r in rows_a[:18]]
    assert m["mean_diff"] == pytest.approx(sum(xa) / 18 + 1, abs=1e-4)  # mean(2a+1 - a)
    assert m["ci_lower"] <= m["mean_diff"] <= m["ci_upper"]
    assert m["rankings_preserved"] == {"share": 1.0, "pairs": 3, "preserved": 3, "not_preserved": []}


def test_a_flipped_pair_of_systems_is_one_third_of_rankings_lost(tmp_path):
    a_vals = {"sea": 0.3, "deepreview": 0.2, "cyclereview": 0.1}
    b_vals = {"sea": 0.3, "deepreview": 0.05, "cyclereview": 0.1}  # deepreview drops below cyclereview
    rows_a = [_row(f"p{i}", s, v + 0.01 * i) for i in range(4) for s, v in a_vals.items()]
    rows_b = [_row(f"p{i}", s, v + 0.01 * i) for i in range(4) for s, v in b_vals.items()]
    out = _compare(_write(tmp_path / "a", rows_a), _write(tmp_path / "b", rows_b))
    rp = out["constructiveness"]["metrics"]["mcs"]["rankings_preserved"]
    assert rp["pairs"] == 3 and rp["preserved"] == 2 and rp["share"] == pytest.approx(2 / 3, abs=1e-4)
    assert rp["not_preserved"] == [f"{group_name('cyclereview')} vs {group_name('deepreview')}"]
    groups = out["constructiveness"]["metrics"]["mcs"]["groups"]
    assert groups[group_name("deepreview")]["b"] == pytest.approx(0.05 + 0.015, abs=1e-4)


def test_runs_without_a_common_review_fail(tmp_path):
    a = _write(tmp_path / "a", [_row("p1", "sea", 0.1)])
    b = _write(tmp_path / "b", [_row("p2", "sea", 0.1)])
    res = CliRunner().invoke(app, ["compare", "--runs", str(a), str(b)])
    assert res.exit_code == 1 and "no scored review in common" in res.output
    res = CliRunner().invoke(app, ["compare", "--runs", str(a), str(tmp_path / "missing")])
    assert res.exit_code == 2


def test_compare_without_systems_or_runs_is_refused(tmp_path):
    res = CliRunner().invoke(app, ["compare", "--run", str(tmp_path)])
    assert res.exit_code == 2 and "--runs" in res.output


def test_offline_judge_against_the_loopback_judge_on_the_demo(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    base = ["evaluate", "--limit", "2", "--dimension", "depth", "--dimension", "constructiveness",
            "--quiet", "--no-report"]
    res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "offline")])
    assert res.exit_code == 0, res.output
    server = LLMServer(schema_seed=7).start()
    try:
        res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "llm"), "--cache-dir", str(tmp_path / "c"),
                                       "--judge", f"openai-compatible/test-model@{server.base_url}"])
    finally:
        server.stop()
    assert res.exit_code == 0, res.output
    out = _compare(tmp_path / "offline", tmp_path / "llm")
    assert set(out) == {"depth", "constructiveness"}
    for dim, d in out.items():
        ok_both = d["rows"]
        assert ok_both["ok_a"] > 0 and ok_both["ok_b"] > 0
        for key, m in d["metrics"].items():
            assert m["n_reviews"] <= min(ok_both["ok_a"], ok_both["ok_b"]), (dim, key)
            for c in ("spearman", "pearson"):
                assert m[c] is None or -1 <= m[c] <= 1
            share = m["rankings_preserved"]["share"]
            assert share is None or 0 <= share <= 1
    assert out["depth"]["metrics"]["doa"]["n_reviews"] > 3
    # a run against itself: perfect agreement wherever the figures are defined
    same = _compare(tmp_path / "llm", tmp_path / "llm")
    for d in same.values():
        for m in d["metrics"].values():
            assert m["mean_diff"] == 0 and m["spearman"] in (None, 1.0)
            assert m["rankings_preserved"]["share"] in (None, 1.0)
    text = CliRunner().invoke(app, ["compare", "--runs", str(tmp_path / "offline"), str(tmp_path / "llm"),
                                    "--n-bootstrap", "100"])
    assert text.exit_code == 0 and "Spearman" in text.output and "judge offline" in text.output


def test_each_runs_manifest_is_read_once_and_names_its_judge(tmp_path, monkeypatch):
    """The header and the card column read each run's manifest apart (twice per run, with two
    copies of the judge's name); a string ``judge`` entry made the header's copy raise."""
    rows = [_row(f"p{i}", s, 0.1 * i + 0.01 * k) for i in range(4) for k, s in enumerate(SYSTEMS)]
    a, b = _write(tmp_path / "a", rows), _write(tmp_path / "b", rows)
    (a / "manifest.json").write_text(json.dumps({"judge": "offline", "protocol": "economical"}))
    (b / "manifest.json").write_text(json.dumps({"judge": {"judge": "openai"}, "judge_spec": "openai/x"}))
    reads: list[Path] = []
    real = Path.read_text

    def counting(self: Path, *args: Any, **kw: Any) -> str:
        if self.name == "manifest.json":
            reads.append(self)
        return real(self, *args, **kw)

    monkeypatch.setattr(Path, "read_text", counting)
    res = CliRunner().invoke(app, ["compare", "--runs", str(a), str(b), "--n-bootstrap", "200"])
    assert res.exit_code == 0, res.output
    assert f"A: {a} (judge offline, protocol economical)" in res.output
    assert f"B: {b} (judge openai/x, protocol not recorded)" in res.output
    assert sorted(p.parent.name for p in reads) == ["a", "b"]

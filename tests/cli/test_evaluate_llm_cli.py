"""``prism evaluate`` end to end through the real openai SDK against the loopback LLM server."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.pipelines.results import read_results

SEGMENT = {
    "arguments": [
        {"index": 0, "argument": "The method is novel."},
        {"index": 1, "argument": "Table 2 shows a 3% gain on ImageNet."},
    ]
}
CLASSIFY = {
    "classified_arguments": [
        {"index": 0, "argument": "The method is novel.", "role": "Claim", "aspect": "Contribution"},
        {"index": 1, "argument": "Table 2 shows a 3% gain on ImageNet.", "role": "premise", "aspect": "Soundness"},
    ]
}
GROUND = {"grounding_results": [{"index": 1, "premise": "Table 2 shows a 3% gain on ImageNet.", "grounding_score": 2}]}


def _args(server, out, cache):
    return [
        "evaluate", "--judge", f"openai-compatible/test-model@{server.base_url}",
        "--dimension", "depth", "--system", "gpt4", "--limit", "3",
        "--out", str(out), "--cache-dir", str(cache), "--quiet", "--no-report",
        "--protocol", "reference",  # the canned replies answer the three DoA steps one by one
    ]


def test_depth_through_loopback_then_second_run_is_all_cache_hits(llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-secret-123")
    llm_server.canned("depth.segment", SEGMENT)
    llm_server.canned("depth.classify", CLASSIFY)
    llm_server.canned("depth.ground", GROUND)
    runner = CliRunner()
    res = runner.invoke(app, _args(llm_server, tmp_path / "run1", tmp_path / "cache"))
    assert res.exit_code == 0, res.output
    rows = read_results(tmp_path / "run1")
    # the first demo paper (NExT-GPT) has human reviews only: 2 of the 3 papers have a gpt4 review
    assert len(rows) == 2 and {r.system for r in rows} == {"gpt4"}
    for r in rows:
        assert r.status == "ok"
        # R_premise = 1/2, S_depth = 2 → d = 1, DoA = 2·0.5·1/1.5
        assert r.metrics["r_premise"] == 0.5 and r.metrics["s_depth"] == 2
        assert abs(r.metrics["doa"] - 2 / 3) < 1e-4
        assert r.judge.startswith("openai-compatible/test-model") or "test-model" in r.judge
    calls_first = len(llm_server.requests)
    assert calls_first == 6  # 2 reviews × 3 steps
    audit = (tmp_path / "run1" / "audit.jsonl").read_text()
    assert len(audit.strip().splitlines()) >= 6
    manifest = (tmp_path / "run1" / "manifest.json").read_text()
    for text in (audit, manifest, (tmp_path / "run1" / "results.jsonl").read_text()):
        assert "sk-loopback-secret-123" not in text
    # the same work into a new folder: zero model calls, all cache hits, and it says so
    res2 = runner.invoke(app, _args(llm_server, tmp_path / "run2", tmp_path / "cache"))
    assert res2.exit_code == 0, res2.output
    assert len(llm_server.requests) == calls_first
    assert "0 model calls, 6 cache hits (100%)" in res2.output
    stats = json.loads((tmp_path / "run2" / "manifest.json").read_text())["totals"]["judge_stats"]
    assert stats["calls"] == 0 and stats["cache_hits"] == 6
    assert [r.metrics for r in read_results(tmp_path / "run2")] == [r.metrics for r in rows]


def test_unparseable_replies_become_unscored_not_zero(llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    llm_server.canned("depth.segment", "this is not JSON at all")
    res = CliRunner().invoke(app, _args(llm_server, tmp_path / "run", tmp_path / "cache"))
    assert res.exit_code == 0, res.output
    rows = read_results(tmp_path / "run")
    assert rows and all(r.status == "unscored" for r in rows)
    assert all(r.metrics.get("doa") is None for r in rows)
    # each review: the first answer, and one re-ask carrying the full original instructions,
    # each sent twice (an unusable reply is a fault until the model repeats it verbatim)
    seg = [q for q in llm_server.requests if q.step == "depth.segment"]
    assert len(seg) == 4 * len(rows)
    by_review: dict[str, list[list[dict]]] = {}
    for q in seg:  # requests of different reviews interleave (concurrency)
        by_review.setdefault(q.body["messages"][1]["content"], []).append(q.body["messages"])
    assert len(by_review) == len(rows)
    for first, again, reask, reask_again in (sorted(v, key=len) for v in by_review.values()):
        assert again == first and reask_again == reask
        assert len(reask) > len(first) and reask[: len(first)] == first


def test_bad_key_stops_cleanly_with_a_clear_message(llm_server, tmp_path, monkeypatch):
    from prism_review.testing.llm_server import Fault

    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    llm_server.set_responder(lambda req: Fault.status(401, "invalid api key"))
    res = CliRunner().invoke(app, _args(llm_server, tmp_path / "run", tmp_path / "cache"))
    assert res.exit_code == 3, res.output
    assert "resume" in res.output


def test_set_option_reaches_the_dimension_and_manifest(tmp_path):
    import shutil

    from prism_review.data.layout import demo_root

    data = tmp_path / "data"  # the demo with one paper's human review removed
    shutil.copytree(demo_root(), data)
    (data / "ICLR2024" / "human_reviews" / "capturing-structural-locality-in-non-parametric.json").unlink()
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        ["evaluate", "--data", str(data), "--dimension", "flaws", "--set", "flaws.reference=human",
         "--set", "flaws.paper_chars=1000", "--limit", "3", "--out", str(out), "--quiet", "--no-report"],
    )
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"] == {"flaws.reference": "human", "flaws.paper_chars": 1000}
    rows = read_results(out)
    # with reference=human, papers without human reviews get skipped rows, never panel scores
    panel = [r for r in rows if r.extracted.get("reference") == "panel"]
    assert panel and all(r.status == "skipped" and not r.metrics for r in panel)
    bad = CliRunner().invoke(app, ["evaluate", "--set", "novalue", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output


def test_evaluate_warns_about_step_settings_that_matched_nothing(llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    monkeypatch.setenv("PRISM_STEP__DEPTH_SEGMNET__MAX_TOKENS", "500")  # misspelt
    llm_server.canned("depth.segment", SEGMENT)
    llm_server.canned("depth.classify", CLASSIFY)
    llm_server.canned("depth.ground", GROUND)
    res = CliRunner().invoke(app, _args(llm_server, tmp_path / "run", tmp_path / "cache"))
    assert res.exit_code == 0, res.output
    assert "matched no step of this run" in res.output and "DEPTH_SEGMNET" in res.output

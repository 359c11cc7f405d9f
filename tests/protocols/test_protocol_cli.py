"""``prism evaluate --protocol economical|reference`` on the demo against the schema-only server.

* economical (the default) sends DoA as one ``depth.analyse`` call per review and the novelty
  claims of a paper's reviews in ``novelty.verdict_paper`` calls (one per paper unless its
  claims need more than one call's budget), never the per-step, per-review or per-pair calls;
  every ok unit has a non-empty extraction;
* reference sends the reference's pattern: three DoA calls per review, one novelty verdict per
  (claim, candidate);
* the protocol is in the manifest and the config hash: a folder made under one is refused under
  the other.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.novelty.test_economical import paper_calls
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.pipelines.results import read_results
from prism_review.testing.llm_server import LLMServer

LIMIT = "2"


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")


def _evaluate(url: str, out: Path, cache: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["evaluate", "--judge", f"openai-compatible/test-model@{url}",
                                    "--limit", LIMIT, "--out", str(out), "--cache-dir", str(cache),
                                    "--quiet", "--no-report", *extra])


def _run(tmp_path: Path, name: str, *extra: str) -> tuple[Counter[str], list[Any], dict[str, Any]]:
    server = LLMServer(schema_seed=7).start()
    try:
        res = _evaluate(server.base_url, tmp_path / name, tmp_path / f"cache-{name}", *extra)
        assert res.exit_code == 0, res.output
        steps = Counter(r.step for r in server.requests)
    finally:
        server.stop()
    manifest = json.loads((tmp_path / name / "manifest.json").read_text())
    return steps, list(read_results(tmp_path / name)), manifest


def test_economical_and_reference_call_patterns(tmp_path):
    eco_steps, eco_rows, eco_manifest = _run(tmp_path, "eco")
    ref_steps, ref_rows, ref_manifest = _run(tmp_path, "ref", "--protocol", "reference")
    assert eco_manifest["protocol"] == "economical" and ref_manifest["protocol"] == "reference"
    assert eco_manifest["config_hash"] != ref_manifest["config_hash"]

    depth_reviews = sum(1 for r in eco_rows if r.dimension == "depth" and r.status != "skipped")
    assert eco_steps["depth.analyse"] == depth_reviews
    assert not {"depth.segment", "depth.classify", "depth.ground"} & set(eco_steps)
    assert eco_steps["novelty.verdict_paper"] > 0
    assert not {"novelty.verdict", "novelty.verdict_batch", "novelty.verdict_review"} & set(eco_steps)

    assert ref_steps["depth.segment"] == depth_reviews and ref_steps["depth.classify"] == depth_reviews
    assert ref_steps["depth.ground"] > 0 and "depth.analyse" not in ref_steps
    assert ref_steps["novelty.verdict"] > 0
    assert not {"novelty.verdict_batch", "novelty.verdict_review"} & set(ref_steps)
    # one reference verdict per (claim, candidate) pair; economical: one call per review's claims
    ref_pairs = sum(len(r.extracted.get("pairs") or []) for r in ref_rows if r.dimension == "novelty")
    assert ref_steps["novelty.verdict"] == ref_pairs
    eco_pairs = sum(len(r.extracted.get("pairs") or []) for r in eco_rows if r.dimension == "novelty")
    assert eco_pairs == ref_pairs
    # one paper call per chunk of the paper's distinct claims (a claim judged once however many
    # reviews make it), each review's pairs from it
    assert eco_steps["novelty.verdict_paper"] == paper_calls(eco_rows)
    assert sum(eco_steps.values()) < sum(ref_steps.values())

    # economical: every ok unit carries its extraction (the schema-only server fills every list)
    for r in eco_rows:
        if r.status != "ok":
            continue
        if r.dimension == "depth":
            assert r.metrics["n_units"] and all(u["role"] for u in r.extracted["units"])
            assert all(u["grounding_score"] is not None for u in r.extracted["units"] if u["role"] == "Premise")
        if r.dimension == "novelty" and r.extracted.get("claims"):
            assert r.extracted["pairs"], r.unit_key
    assert Counter(r.dimension for r in eco_rows) == Counter(r.dimension for r in ref_rows)
    assert {r.dimension for r in eco_rows if r.status == "ok"} == {"depth", "novelty", "flaws", "constructiveness"}

    # the protocol is part of the run's settings: resuming under the other one is refused
    server = LLMServer(schema_seed=7).start()
    try:
        res = _evaluate(server.base_url, tmp_path / "eco", tmp_path / "cache-eco", "--protocol", "reference")
    finally:
        server.stop()
    assert res.exit_code == 2 and "other settings" in res.output


def test_unknown_protocol_is_refused(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--protocol", "cheap", "--limit", "1", "--out",
                                   str(tmp_path / "x"), "--quiet", "--no-report"])
    assert res.exit_code == 2 and "unknown --protocol" in res.output

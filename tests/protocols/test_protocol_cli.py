"""``prism evaluate --protocol economical|pooled|reference`` on the demo against the schema-only server.

* economical (the default) sends DoA as one ``depth.analyse`` call per review and each review's
  novelty claims in its own ``novelty.verdict_review`` calls (one per review unless its pairs
  need more than one call's budget), one ``constructiveness.arc`` per review, never the per-step,
  per-paper or per-pair calls; every ok unit has a non-empty extraction;
* pooled sends a paper's claims in ``novelty.verdict_paper`` calls and groups of papers'
  reviews in ``constructiveness.arc_batch`` calls;
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
from prism_review.testing.cli_run import evaluate
from prism_review.testing.llm_server import LLMServer

LIMIT = "2"


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")


def _evaluate(url: str, out: Path, cache: Path, *extra: str) -> Any:
    return evaluate(url, out, cache, "--limit", LIMIT, *extra)


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
    assert eco_steps["novelty.verdict_review"] > 0
    assert not {"novelty.verdict", "novelty.verdict_batch", "novelty.verdict_paper"} & set(eco_steps)
    ctr_reviews = sum(1 for r in eco_rows if r.dimension == "constructiveness"
                      and (r.extracted or {}).get("status") != "empty_input")
    assert eco_steps["constructiveness.arc"] >= ctr_reviews and "constructiveness.arc_batch" not in eco_steps

    assert ref_steps["depth.segment"] == depth_reviews and ref_steps["depth.classify"] == depth_reviews
    assert ref_steps["depth.ground"] > 0 and "depth.analyse" not in ref_steps
    assert ref_steps["novelty.verdict"] > 0
    assert not {"novelty.verdict_batch", "novelty.verdict_review"} & set(ref_steps)
    # one reference verdict per (claim, candidate) pair; economical: one call per review's claims
    ref_pairs = sum(len(r.extracted.get("pairs") or []) for r in ref_rows if r.dimension == "novelty")
    assert ref_steps["novelty.verdict"] == ref_pairs
    eco_pairs = sum(len(r.extracted.get("pairs") or []) for r in eco_rows if r.dimension == "novelty")
    assert eco_pairs == ref_pairs
    # at least one call per review with claims and candidates (more when its pairs are split)
    assert eco_steps["novelty.verdict_review"] >= sum(1 for r in eco_rows if r.dimension == "novelty"
                                                      and r.extracted.get("pairs"))
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
    assert {r.dimension for r in eco_rows if r.status == "ok"} >= {"depth", "novelty", "flaws", "constructiveness"}

    # the protocol is part of the run's settings: resuming under the other one is refused
    server = LLMServer(schema_seed=7).start()
    try:
        res = _evaluate(server.base_url, tmp_path / "eco", tmp_path / "cache-eco", "--protocol", "reference")
    finally:
        server.stop()
    assert res.exit_code == 2 and "other settings" in res.output


def test_pooled_call_pattern_and_manifest(tmp_path):
    steps, rows, manifest = _run(tmp_path, "pooled", "--protocol", "pooled")
    assert manifest["protocol"] == "pooled" and manifest["selection_invariant"] is False
    # one paper call per chunk of the paper's distinct claims (a claim judged once however many
    # reviews make it), each review's pairs from it
    assert steps["novelty.verdict_paper"] == paper_calls(rows)
    assert steps["constructiveness.arc_batch"] >= 1


def test_unknown_protocol_is_refused(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--protocol", "cheap", "--limit", "1", "--out",
                                   str(tmp_path / "x"), "--quiet", "--no-report"])
    assert res.exit_code == 2 and "unknown --protocol" in res.output


def test_a_folder_of_the_old_economical_protocol_is_refused(tmp_path):
    """issue 25: ``economical`` changed meaning (selection-invariant since version 2), so a run
    folder made by the old economical (its config hash had no protocol version) is refused on
    resume; reference folders, and offline ones (no calls under any protocol), still resume."""
    import hashlib

    from prism_review.judge.base import OfflineJudge
    from prism_review.pipelines.run_config import EvalOptions, config_hash

    class _LLM:
        mode = "llm"

        def describe(self):
            return {"judge": "openai/x"}

    def old_hash(opts, judge):  # the config hash before the protocol version was hashed
        payload = {"judge": judge.describe(), "compat": opts.compat, "protocol": opts.protocol,
                   "settings": opts.settings}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def opts(protocol, **kw):
        return EvalOptions(out=tmp_path / "x", protocol=protocol, **kw)

    assert config_hash(opts("economical"), _LLM()) != old_hash(opts("economical"), _LLM())
    assert config_hash(opts("reference"), _LLM()) == old_hash(opts("reference"), _LLM())
    assert config_hash(opts("economical"), OfflineJudge()) == old_hash(opts("economical"), OfflineJudge())
    assert config_hash(opts("economical", compat=True), _LLM()) == old_hash(opts("economical", compat=True), _LLM())
    assert len({config_hash(opts(p), _LLM()) for p in ("economical", "pooled", "reference")}) == 3

    # end to end: a folder made by the old economical (its manifest holds the old hash of its
    # own judge and settings) is refused; the same for reference resumes
    def made_by_old_code(run):
        path = run / "manifest.json"
        m = json.loads(path.read_text())
        payload = {k: m[k] for k in ("judge", "compat", "protocol", "settings")}
        m["config_hash"] = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]
        m.pop("protocol_version")
        path.write_text(json.dumps(m))
        return m

    server = LLMServer(schema_seed=7).start()
    try:
        codes = {}
        for protocol in ("economical", "reference"):
            run = tmp_path / protocol
            res = _evaluate(server.base_url, run, tmp_path / "cache", "--dimension", "depth", "--protocol", protocol)
            assert res.exit_code == 0, res.output
            assert json.loads((run / "manifest.json").read_text())["selection_invariant"] is True
            made_by_old_code(run)
            res = _evaluate(server.base_url, run, tmp_path / "cache", "--dimension", "depth", "--protocol", protocol)
            codes[protocol] = (res.exit_code, "other settings" in res.output)
    finally:
        server.stop()
    assert codes == {"economical": (2, True), "reference": (0, False)}

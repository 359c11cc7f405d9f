"""``prism evaluate`` on the bundled demo, all four dimensions, against a loopback server that
answers from the sent JSON schema only (as a server with constrained decoding does).

* no unit is ``ok`` with an empty extraction (before: the flaw steps' schemas admitted only
  ``{}``, so every flaw had no reviewer and no evaluation and the unit was ``ok`` with nCPS 0);
* the same command into a new ``--out`` makes 0 model calls (before: ``flaws.consolidate``
  runs at temperature 0.1 and was never reused);
* 20% injected faults (429, 500, replies cut in half) give the fault-free results unit for unit;
* a server that is down for a while mid-run loses nothing: the re-run after it is back equals a
  fault-free run (before: the units it hit were written ``unscored`` and skipped for good).
"""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.pipelines.results import read_results
from prism_review.testing.llm_server import Fault, LLMServer

SEED = 7
LIMIT = "4"  # the first 4 demo papers: human reviews and all three LLM systems
_SHARED = {"novelty.paper", "novelty.claims", "flaws.consolidate", "flaws.validate"}
#: the steps each protocol sends (dimensions/protocol.py)
STEPS = {
    "economical": _SHARED | {"depth.analyse", "novelty.verdict_review", "constructiveness.arc",
                             "flaws.map_batch", "flaws.extend", "flaws.map"},
    "pooled": _SHARED | {"depth.analyse", "novelty.verdict_paper", "constructiveness.arc_batch",
                         "flaws.map_batch"},
    "reference": _SHARED | {"depth.segment", "depth.classify", "depth.ground", "novelty.verdict",
                            "constructiveness.arc", "flaws.map"},
}


@pytest.fixture
def schema_server():
    server = LLMServer(schema_seed=SEED).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")


def _evaluate(server: LLMServer | str, out: Path, cache: Path, *extra: str) -> Any:
    url = server if isinstance(server, str) else server.base_url
    args = ["evaluate", "--judge", f"openai-compatible/test-model@{url}",
            "--limit", LIMIT, "--out", str(out), "--cache-dir", str(cache), "--quiet",
            "--no-report", *extra]
    return CliRunner().invoke(app, args)


def _by_unit(out: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    rows = {}
    for r in read_results(out):
        key = (r.dimension, r.unit_key, r.reviewer_id, r.pairing)
        assert key not in rows
        rows[key] = {"status": r.status, "metrics": r.metrics, "error": r.error,
                     "extracted": r.extracted}
    return rows


def _empty_extraction(dimension: str, row: dict[str, Any]) -> str | None:
    m, x = row["metrics"], row["extracted"]
    if dimension == "depth" and not m.get("n_units"):
        return "no argument unit"
    if dimension == "constructiveness" and not m.get("n_arcs"):
        return "no atomic comment"
    if dimension == "novelty":
        # the claims step's answer was not empty (see the audit check), but a claim whose text
        # is not verbatim in the review is dropped by design; a claim-less review is null
        if not x.get("claims") and any(m.get(k) is not None for k in ("ns", "sr", "ssr")):
            return "no claim, yet scored"
        if x.get("claims") and not x.get("pairs"):
            return "claims without a verdict"
    if dimension == "flaws":
        flaws = x.get("micro_flaws") or []
        if not flaws:
            return "no micro-flaw"
        if any(not f.get("raw_arguments") for f in flaws):
            return "a micro-flaw raised by no reviewer"
        if set(x.get("evaluations") or {}) != {f["flaw_id"] for f in flaws}:
            return "flaws without an evaluation"
    return None


@pytest.mark.parametrize("protocol", ["economical", "pooled", "reference"])
def test_schema_only_server_runs_every_step_and_a_rerun_makes_no_calls(schema_server, tmp_path, protocol):
    res = _evaluate(schema_server, tmp_path / "run1", tmp_path / "cache", "--protocol", protocol)
    assert res.exit_code == 0, res.output
    calls = len(schema_server.requests)
    steps = {r.step for r in schema_server.requests}
    assert steps == STEPS[protocol], steps ^ STEPS[protocol]
    # every answer the judge parsed carries content in every list it reads
    for line in (tmp_path / "run1" / "audit.jsonl").read_text().splitlines():
        rec = json.loads(line)
        parsed = rec.get("parsed") or {}
        empty = [k for k, v in parsed.items() if v in ([], {}, "") and k != "fallback"]
        assert rec.get("parsed") is None or not empty, (rec["step"], empty)
    rows = _by_unit(tmp_path / "run1")
    for dim in ("depth", "novelty", "flaws", "constructiveness"):
        ok = [(k, r) for k, r in rows.items() if k[0] == dim and r["status"] == "ok"]
        assert ok, f"{dim}: no unit scored"
        empty = [(k[1], why) for k, r in ok if (why := _empty_extraction(dim, r))]
        assert empty == [], f"{dim}: ok units with an empty extraction: {empty[:5]}"
    # the same command into a new folder: zero model calls, the same results
    res2 = _evaluate(schema_server, tmp_path / "run2", tmp_path / "cache", "--protocol", protocol)
    assert res2.exit_code == 0, res2.output
    assert len(schema_server.requests) == calls
    assert "0 model calls" in res2.output
    stats = json.loads((tmp_path / "run2" / "manifest.json").read_text())["totals"]["judge_stats"]
    assert stats["calls"] == 0 and stats["cache_hits"] > 0
    assert _by_unit(tmp_path / "run2") == rows


def _faulty(server: LLMServer, rate: float, seed: int):
    """429 / 500 / a reply cut in half at ``rate``, chosen per (request, attempt), so the choice
    does not depend on the order in which concurrent requests arrive. A reply is cut only where
    a re-ask can give it more room (a budget below the global 8,000 cap: a reply cut at its
    step's cap is not asked again, ``tests/llm/test_reask_cap.py``) and only once per prompt (a
    reply cut on its re-ask too is unscored, whatever the faults)."""
    lock = threading.Lock()
    seen: dict[str, int] = {}
    cut: set[str] = set()
    injected: list[str] = []

    def responder(body: dict[str, Any]) -> Any:
        key = json.dumps([body.get("messages"), body.get("max_tokens")], sort_keys=True)
        prompt = json.dumps(body.get("messages"), sort_keys=True)
        with lock:
            k = seen[key] = seen.get(key, 0) + 1
        rng = random.Random(f"{seed}:{key}:{k}")
        reply = server.default_reply(body)
        if rng.random() >= rate:
            return reply
        fault = rng.choice(["429", "500", "cut"])
        if fault == "cut" and (int(body["max_tokens"]) >= 8000 or prompt in cut):
            fault = rng.choice(["429", "500"])
        if fault == "cut":
            with lock:
                cut.add(prompt)
        with lock:
            injected.append(fault)
        if fault == "429":
            return Fault.status(429, retry_after=0.01)
        if fault == "500":
            return Fault.status(500)
        return Fault.truncated(reply, keep=0.5)

    return responder, injected


def test_twenty_percent_faults_give_the_fault_free_results(schema_server, tmp_path):
    ref = ("--protocol", "reference")
    res = _evaluate(schema_server, tmp_path / "clean", tmp_path / "cache-clean", *ref)
    assert res.exit_code == 0, res.output
    expected = _by_unit(tmp_path / "clean")
    responder, injected = _faulty(schema_server, 0.2, seed=3)
    schema_server.set_responder(responder)
    res = _evaluate(schema_server, tmp_path / "faulty", tmp_path / "cache-faulty", *ref)
    assert res.exit_code == 0, res.output
    assert len(injected) >= 10 and set(injected) == {"429", "500", "cut"}, injected
    assert _by_unit(tmp_path / "faulty") == expected


def test_a_server_down_mid_run_loses_nothing(schema_server, tmp_path, monkeypatch):
    monkeypatch.setenv("PRISM_MAX_RETRIES", "2")
    dims = ("--dimension", "depth", "--dimension", "flaws")
    res = _evaluate(schema_server, tmp_path / "clean", tmp_path / "cache-clean", *dims)
    assert res.exit_code == 0, res.output
    expected = _by_unit(tmp_path / "clean")
    # the server goes away half-way through the clean run's calls
    half = len(schema_server.requests) // 2
    answered = 0
    lock = threading.Lock()

    def down_after_some(body: dict[str, Any]) -> Any:
        nonlocal answered
        with lock:
            answered += 1
            if answered > half:  # the server goes away: every later request is dropped
                return Fault.disconnect()
        return schema_server.default_reply(body)

    schema_server.set_responder(down_after_some)
    out, cache = tmp_path / "run", tmp_path / "cache"
    res = _evaluate(schema_server, out, cache, *dims, "--max-errors", "0")
    assert res.exit_code == 1, res.output
    assert "failed" in res.output and "re-run to retry" in res.output
    partial = _by_unit(out)
    assert 0 < len(partial) < len(expected)
    # what was written is what a fault-free run writes: no outage recorded as unscored
    assert partial == {k: expected[k] for k in partial}
    schema_server.set_responder(None)  # back up
    res = _evaluate(schema_server, out, cache, *dims, "--max-errors", "0")
    assert res.exit_code == 0, res.output
    assert _by_unit(out) == expected


def test_no_server_with_max_errors_0_fails_loudly(tmp_path):
    server = LLMServer().start()
    url = server.base_url
    server.stop()  # nothing listens on this port any more
    res = _evaluate(url, tmp_path / "run", tmp_path / "cache", "--dimension", "depth",
                    "--max-errors", "0")
    # a server that never answered stops the run at once (exit 3), naming the URL
    assert res.exit_code == 3, res.output
    assert " 0 failed" not in res.output
    assert not (tmp_path / "run" / "results.jsonl").exists() or not read_results(tmp_path / "run")
    assert f"cannot connect to {url}" in " ".join(res.output.split())

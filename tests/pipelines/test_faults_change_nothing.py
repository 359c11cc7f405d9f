"""Faults change nothing (issue 25, item 5): under 20% injected faults of every kind, a run's rows
are the fault-free run's, every dimension, under both protocols, and a re-run changes nothing.

The judge is the loopback server in its context-sensitive mode (every number of every answer
drawn from a hash of the whole request), so a fault that made the judge send a different request
(a repair re-ask quoting the fault, a longer budget, another context) would show as a different
row. The faulty server adds a seeded mix (:class:`~prism_review.testing.fault_mix.FaultMix`): 429s,
500s, dropped connections, replies cut in half without ``finish_reason="length"``, invalid JSON,
early ``finish_reason="length"`` and answers off the schema.

Before the fix a malformed reply went to a corrective re-ask (another request) and was cached:
rows differed from the fault-free run's, and a re-run reproduced the difference from the cache.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.pipelines.results import read_results
from prism_review.testing import flaw_decisions, novelty_decisions
from prism_review.testing.cli_run import evaluate
from prism_review.testing.fault_mix import KINDS, FaultMix
from prism_review.testing.llm_server import LLMServer

SEED = 11
RATE = 0.2
DIMS = "depth,novelty,flaws,constructiveness"


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.005")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.02")


def _server(faults: FaultMix | None) -> LLMServer:
    server = LLMServer(schema_seed=SEED, context_seed=SEED, faults=faults)
    server.set_responder(novelty_decisions.responder(flaw_decisions.responder(server.default_reply)))
    return server.start()


@pytest.fixture(scope="module")
def servers():
    clean, faulty = _server(None), _server(FaultMix(RATE, seed=5))
    yield clean, faulty
    clean.stop()
    faulty.stop()


def _evaluate(server: LLMServer, out: Path, cache: Path, protocol: str,
              dims: str = DIMS, code: int = 0) -> dict[str, Any]:
    res = evaluate(server.base_url, out, cache, *(f"--dimension={d}" for d in dims.split(",")),
                   "--limit", "3", "--protocol", protocol)
    assert res.exit_code == code, res.output
    return json.loads((out / "manifest.json").read_text())["totals"]  # type: ignore[no-any-return]


def _rows(out: Path) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Every row by (dimension, unit, reviewer, system, pairing): status, metrics, extraction,
    error (usage left out: which call a row owes depends on what ran first)."""
    return {(r.dimension, r.unit_key, r.reviewer_id, r.system, r.pairing):
            (r.status, json.dumps(r.metrics, sort_keys=True),
             json.dumps(r.extracted, sort_keys=True), r.error)
            for r in read_results(out)}


def test_faults_of_every_kind_change_no_row(servers, tmp_path):
    clean, faulty = servers
    assert faulty.faults is not None
    for protocol in ("economical", "reference"):
        before = sum(faulty.faults.injected.values())
        _evaluate(clean, tmp_path / f"clean-{protocol}", tmp_path / f"clean-{protocol}-cache",
                  protocol)
        out, cache = tmp_path / f"faulty-{protocol}", tmp_path / f"faulty-{protocol}-cache"
        totals = _evaluate(faulty, out, cache, protocol)
        want, got = _rows(tmp_path / f"clean-{protocol}"), _rows(out)
        assert {k[0] for k in want} == set(DIMS.split(","))
        assert sum(faulty.faults.injected.values()) - before >= 10
        stats = totals["judge_stats"]
        assert stats["retries"] >= 10 and stats["transient"] == 0
        assert totals["units_failed"] == 0
        differ = sorted(k for k in want if want[k] != got.get(k))
        assert set(got) == set(want) and not differ, (protocol, differ[:5])
        # a re-run into the same folder changes nothing (and asks nothing: every unit is done)
        asked = len(faulty.requests)
        _evaluate(faulty, out, cache, protocol)
        assert _rows(out) == want and len(faulty.requests) == asked
        # nothing a fault brought was cached: a new folder on the same cache gives the same rows
        _evaluate(faulty, tmp_path / f"again-{protocol}", cache, protocol)
        assert _rows(tmp_path / f"again-{protocol}") == want
    assert set(faulty.faults.injected) >= set(KINDS), faulty.faults.injected  # every kind met


def test_a_unit_failed_by_faults_only_is_left_for_the_next_run_and_counted(tmp_path):
    # every reply unusable and never the same: no step is unscored (that is for deterministic
    # outcomes), every unit is left unwritten and counted as failed transiently, nothing is
    # cached or memoised, and the next run in the same folder computes them
    clean = _server(None)
    faulty = _server(FaultMix(1.0, seed=1, kinds=("invalid_json", "cut", "off_schema")))
    try:
        _evaluate(clean, tmp_path / "clean", tmp_path / "clean-cache", "economical", "novelty")
        out, cache = tmp_path / "run", tmp_path / "cache"
        totals = _evaluate(faulty, out, cache, "economical", "novelty", code=1)
        stats = totals["judge_stats"]
        assert stats["transient"] > 0 and stats["unscored"] == 0 and totals["units_failed"] > 0
        assert not (out / "results.jsonl").exists()  # no failure is a row
        assert not list(out.glob("memo/**/*.json"))  # nor a memoised piece
        faulty.faults = None  # the faults are gone: the same folder finishes the run
        _evaluate(faulty, out, cache, "economical", "novelty")
        assert _rows(out) == _rows(tmp_path / "clean")
    finally:
        clean.stop()
        faulty.stop()

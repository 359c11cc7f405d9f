"""Under ``--engine ray`` the calls of a unit that fails count in the live totals when it fails.

A Ray worker reports its judge's call totals with each unit it returns; a unit that raised
returned nothing, so its calls (paid for: here each failed unit's segmentation call) reached
the driver's totals only when the engine closed, and the live display showed 0 calls for a run
whose units were failing. The engine now collects the worker's totals as the failure comes back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_review.pipelines.runner import EvalOptions, Progress, run_evaluation
from prism_review.testing.llm_server import Fault, LLMServer


async def test_a_failed_units_calls_count_when_it_fails(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from prism_review.pipelines.ray_engine import RayEngine

    server = LLMServer(schema_seed=7).start()
    # segmentation answers (a call made and paid); the next step fails: the unit raises
    server.canned("depth.classify", Fault.status(500))
    server.canned("depth.ground", Fault.status(500))
    opts = EvalOptions(out=tmp_path / "run", dimensions=["depth"], limit=1, report=False,
                       protocol="reference", judge=f"openai-compatible/test-model@{server.base_url}",
                       judge_options={"api_key": "k", "no_cache": True, "max_retries": 0,
                                      "max_errors": 0})
    progress = Progress()
    seen: list[tuple[int, int]] = []  # (units failed, calls counted) at every update

    def record(p: Progress) -> None:
        seen.append((p.units_failed, int(p.judge_stats().get("calls", 0))))

    progress.on_update = record
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        res = await run_evaluation(opts, engine=RayEngine(opts), progress=progress)
    finally:
        ray.shutdown()
        server.stop()
    segments = sum(r.step == "depth.segment" for r in server.requests)
    assert res.units_failed > 0 and res.units_done == 0 and segments == res.units_failed
    failures = [(f, calls) for f, calls in seen if f > 0]
    assert failures
    # every failure's own call is counted by the time the failure is shown
    assert all(calls >= f for f, calls in failures), failures
    assert res.manifest["totals"]["judge_stats"]["calls"] == segments

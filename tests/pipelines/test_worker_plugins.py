"""Plug-ins registered in the driver at run time reach the worker processes of ``--workers N``
(and the actors of ``--engine ray``), or the run says which one cannot, before any unit runs.
Before, a worker knew only built-in and entry-point plug-ins: every unit of a run-time
dimension failed with "unknown dimension"."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import ClassVar

import pytest
from tests.pipelines.plugin_dims import CritiqueWords, probe

from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    register_dimension,
    unregister_dimension,
)
from prism_review.llm.errors import ConfigError
from prism_review.pipelines.process_engine import ProcessEngine
from prism_review.pipelines.results import read_results
from prism_review.pipelines.runner import EvalOptions, run_evaluation
from prism_review.systems.byo import byo_spec
from prism_review.systems.registry import register_system, unregister_system


@pytest.fixture
def toy():
    register_dimension(CritiqueWords)
    yield CritiqueWords
    unregister_dimension(CritiqueWords.name)


def _rows(out):
    return sorted((r.unit_key, r.status, r.metrics) for r in read_results(out))


async def test_workers_evaluate_a_dimension_registered_at_run_time(tmp_path, toy):
    def opts(name):
        return EvalOptions(out=tmp_path / name, dimensions=[toy.name], limit=2, report=False)

    local = await run_evaluation(opts("local"))
    pool = await run_evaluation(opts("pool"), engine=ProcessEngine(opts("pool"), 2))
    assert local.units_done > 0 and pool.units_failed == 0
    assert _rows(tmp_path / "pool") == _rows(tmp_path / "local")


def test_a_system_registered_at_run_time_reaches_a_fresh_worker(toy):
    from prism_review.pipelines.plugins import driver_plugins

    register_system(byo_spec("toy-byo-system"))
    try:
        plugins = driver_plugins("--workers")
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=ctx) as pool:
            before, after = pool.submit(probe, plugins, "toy-byo-system").result(timeout=120)
    finally:
        unregister_system("toy-byo-system")
    assert before == (False, False) and after == (True, True)


async def test_a_plug_in_that_cannot_reach_the_workers_is_named_before_any_unit(tmp_path):
    class Local(Dimension):  # defined in a function: no worker can import it
        name: ClassVar[str] = "toy-local-only"
        label: ClassVar[str] = "Local"
        metrics: ClassVar[list[MetricSpec]] = []

        def work_units(self, paper, reviews, systems):
            return self.per_review_units(paper, reviews, systems)

        async def evaluate(self, unit, ctx):
            return []

    register_dimension(Local)
    try:
        opts = EvalOptions(out=tmp_path / "run", dimensions=[Local.name], limit=1, report=False)
        with pytest.raises(ConfigError, match="toy-local-only"):
            await run_evaluation(opts, engine=ProcessEngine(opts, 2))
    finally:
        unregister_dimension(Local.name)
    assert not (tmp_path / "run" / "results.jsonl").exists() or not read_results(tmp_path / "run")


async def test_ray_actors_evaluate_a_dimension_registered_at_run_time(tmp_path, toy):
    ray = pytest.importorskip("ray")
    from prism_review.pipelines.ray_engine import RayEngine

    def opts(name):
        return EvalOptions(out=tmp_path / name, dimensions=[toy.name], limit=2, report=False)

    await run_evaluation(opts("local"))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        res = await run_evaluation(opts("ray"), engine=RayEngine(opts("ray")))
    finally:
        ray.shutdown()
    assert res.units_failed == 0
    assert _rows(tmp_path / "ray") == _rows(tmp_path / "local")

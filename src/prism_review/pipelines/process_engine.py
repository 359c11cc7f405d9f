"""``prism evaluate --workers N``: the offline judge's work units in N processes of this machine.

The offline judge is CPU-bound Python and numpy around the depth encoder's onnxruntime runs.
In one process only the encoder's runs use the second core; segmentation, grounding features,
the whole constructiveness judge and the run's bookkeeping take turns on one. With ``--workers
2`` on a 2-core machine each worker process loads the offline models once and evaluates whole
units, so every stage runs on both cores.

As with :mod:`~prism_review.pipelines.ray_engine`, the driver alone reads the source, skips
finished units and writes the results log: resume, dedup and the results are those of the
in-process engine (a unit's result does not depend on where it ran: the encoder runs one
sentence per call, so a sentence's vector has no batch-mates). Each worker holds two units, so
it starts the next while the driver records the last.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from prism_review.llm.errors import ConfigError
from prism_review.pipelines.engines import Engine, add_numbers
from prism_review.pipelines.plugins import driver_plugins
from prism_review.pipelines.unit_worker import UnitWorker

if TYPE_CHECKING:
    from prism_review.dimensions.base import Dimension, ResultRow, WorkUnit

#: units handed to a worker before its previous one is back (one running, one waiting)
QUEUED_PER_WORKER = 2

_STATE: dict[str, Any] = {}


def _init_worker(opts_json: str, plugins: list[tuple[str, str, bytes]]) -> None:
    """Build the worker's judge, settings and memo once (the models load on first use)."""
    try:
        _STATE.update(worker=UnitWorker(opts_json, plugins=plugins), loop=asyncio.new_event_loop())
    except ConfigError as exc:  # said by the first unit (fatal), not a pool that just breaks
        _STATE["error"] = exc


def _evaluate(dimension: str, unit: WorkUnit) -> tuple[list[ResultRow], dict[str, Any]]:
    if "error" in _STATE:
        raise _STATE["error"]
    rows, usage, _stats = _STATE["loop"].run_until_complete(_STATE["worker"].evaluate(dimension, unit))
    return rows, usage  # the offline judge keeps no call totals


class WorkerDied(RuntimeError):
    """A worker process ended mid-run; every later unit would fail, so the run stops."""

    fatal = True


class ProcessEngine(Engine):
    """Units as calls to a pool of worker processes (see the module docstring)."""

    name = "local"

    def __init__(self, opts: Any, workers: int) -> None:
        if opts.judge != "offline":
            raise ValueError("--workers runs the offline judge; an LLM judge uses --concurrency")
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        self.opts = opts
        self.workers = workers
        self.slots = workers * QUEUED_PER_WORKER
        self._pool: ProcessPoolExecutor | None = None
        self._usage: dict[str, Any] = {}

    async def start(self) -> None:
        # spawn, not fork: the driver may already hold onnxruntime and BLAS thread pools
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.opts.model_dump_json(), driver_plugins("--workers")),
        )

    async def evaluate(self, dim: Dimension, unit: WorkUnit) -> list[ResultRow]:
        assert self._pool is not None, "ProcessEngine.start() was not awaited"
        try:
            rows, usage = await asyncio.wrap_future(self._pool.submit(_evaluate, dim.name, unit))
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory): stop the run
            raise WorkerDied(f"an evaluation worker process died: {exc}") from exc
        add_numbers(self._usage, usage)
        return list(rows)

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    def usage(self) -> dict[str, Any] | None:
        return self._usage

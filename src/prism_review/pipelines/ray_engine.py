"""``prism evaluate --engine ray``: work units run as Ray actor calls, on one machine or a cluster.

* One actor per worker CPU builds the judge once (the offline judge's models are loaded once per
  worker, not per unit) and evaluates units sent to it; the driver alone reads the source, skips
  finished units and writes the results log, so resume, dedup and the results are exactly those
  of the local engine.
* LLM judges: every worker's calls go through one shared rate limiter (an actor holding the RPM /
  TPM buckets), so ``--rpm``/``--tpm`` hold for the whole cluster, not per worker.
* Ray is an optional extra: ``pip install "prism-review[ray]"``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from prism_review.llm.errors import ConfigError
from prism_review.pipelines.engines import Engine, add_numbers
from prism_review.pipelines.plugins import driver_plugins
from prism_review.pipelines.unit_worker import UnitWorker

if TYPE_CHECKING:
    from prism_review.dimensions.base import Dimension, ResultRow, WorkUnit


#: offline judge: units sent to an actor (it runs one at a time) before its last one is back
QUEUED_PER_ACTOR = 2


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            "--engine ray needs Ray: pip install \"prism-review[ray]\""
        ) from exc
    return ray


class _Worker(UnitWorker):
    """A Ray actor: one judge, one memo store, every worker's calls under the shared limits."""

    def __init__(self, opts_json: str, limiter: Any, plugins: list[tuple[str, str, bytes]]) -> None:
        factory = None
        if limiter is not None:
            factory = lambda rpm, tpm, tag: RemoteLimiter(limiter, tag)  # noqa: E731
        super().__init__(opts_json, factory, plugins)

    async def aclose(self) -> None:
        aclose = getattr(self.judge, "aclose", None)
        if callable(aclose):
            await aclose()


class _SharedLimits:
    """A Ray actor holding the RPM/TPM buckets of every (provider, model) for all workers."""

    def __init__(self, rpm: float, tpm: float) -> None:
        self.rpm, self.tpm = rpm, tpm
        self.limiters: dict[str, Any] = {}

    def _get(self, tag: str) -> Any:
        from prism_review.llm.limits import RateLimiter

        if tag not in self.limiters:
            self.limiters[tag] = RateLimiter(self.rpm, self.tpm)
        return self.limiters[tag]

    def reserve(self, tag: str, tokens: int) -> float:
        """Seconds the caller must wait before its request (the reservation is made now)."""
        lim = self._get(tag)
        wait = 0.0
        if lim.requests is not None:
            wait = max(wait, lim.requests.reserve(1))
        if lim.tokens is not None:
            wait = max(wait, lim.tokens.reserve(tokens))
        return wait

    def settle(self, tag: str, reserved: int, used: int | None) -> None:
        self._get(tag).settle(reserved, used)


class RemoteLimiter:
    """The worker-side face of :class:`_SharedLimits` (the ``RateLimiter`` interface)."""

    def __init__(self, actor: Any, tag: str) -> None:
        self.actor, self.tag = actor, tag
        self.waited = 0.0

    async def acquire(self, tokens: int) -> None:
        wait = await self.actor.reserve.remote(self.tag, tokens)
        if wait > 0:
            self.waited += wait
            await asyncio.sleep(wait)

    def settle(self, reserved: int, used: int | None) -> None:
        self.actor.settle.remote(self.tag, reserved, used)


class RayEngine(Engine):
    """Units as calls to a pool of :class:`_Worker` actors (see the module docstring)."""

    name = "ray"

    def __init__(self, opts: Any, *, address: str | None = None, workers: int | None = None,
                 num_cpus: int | None = None) -> None:
        self.opts = opts
        self.address = address
        self.workers = workers
        self.num_cpus = num_cpus
        self.slots = 1
        self._actors: list[Any] = []
        self._idle: asyncio.Queue[Any] | None = None
        self._usage: dict[str, Any] = {}
        self._stats: dict[str, Any] = {}
        self._started_ray = False

    async def start(self) -> None:
        ray = _ray()
        plugins = driver_plugins("--engine ray")  # before starting Ray: a plug-in we cannot send
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "configure_logging": False}
            if self.address:
                kwargs["address"] = self.address
            elif self.num_cpus:
                kwargs["num_cpus"] = self.num_cpus
            ray.init(**kwargs)
            self._started_ray = True
        n = self.workers or max(1, int(ray.available_resources().get("CPU", 1)))
        llm = self.opts.judge != "offline"
        per_actor = max(1, self.opts.concurrency // n) if llm else 1
        limiter = None
        if llm:
            rpm = float(self.opts.judge_options.get("rpm") or 0)
            tpm = float(self.opts.judge_options.get("tpm") or 0)
            limiter = ray.remote(num_cpus=0)(_SharedLimits).remote(rpm, tpm)
        worker = ray.remote(num_cpus=1, max_concurrency=per_actor)(_Worker)
        opts_json = self.opts.model_dump_json()
        self._actors = [worker.remote(opts_json, limiter, plugins) for _ in range(n)]
        self._idle = asyncio.Queue()
        # offline: each actor holds a second unit in its queue, so it starts the next one while
        # the driver receives and records the last (one per actor left it idle for that round trip)
        held = per_actor if llm else QUEUED_PER_ACTOR
        for _ in range(held):
            for actor in self._actors:
                self._idle.put_nowait(actor)
        self.slots = n * held

    async def evaluate(self, dim: Dimension, unit: WorkUnit) -> list[ResultRow]:
        assert self._idle is not None, "RayEngine.start() was not awaited"
        actor = await self._idle.get()
        try:
            rows, usage, stats = await actor.evaluate.remote(dim.name, unit)
        except Exception as exc:
            await self._collect_stats(actor)  # its calls count when it fails, not at close
            raise _cause(exc) from exc
        finally:
            self._idle.put_nowait(actor)
        add_numbers(self._usage, usage)
        add_numbers(self._stats, stats)  # live: the progress display reads it as units come back
        return list(rows)

    async def _collect_stats(self, actor: Any) -> None:
        """Add what ``actor`` has not reported yet (a failed unit returns no totals of its own:
        the worker's totals since its last report hold its calls)."""
        with contextlib.suppress(Exception):  # a dead worker's calls are lost to the count only
            add_numbers(self._stats, await actor.stats_since.remote())

    async def close(self) -> None:
        if not self._actors:
            return
        ray = _ray()
        try:
            # what no unit reported yet (calls of a unit given up while in flight)
            stats = await asyncio.gather(*(a.stats_since.remote() for a in self._actors))
            for s in stats:
                add_numbers(self._stats, s)
            await asyncio.gather(*(a.aclose.remote() for a in self._actors))
        finally:
            for a in self._actors:
                ray.kill(a)
            self._actors = []
            if self._started_ray:
                ray.shutdown()

    def usage(self) -> dict[str, Any] | None:
        return self._usage

    def judge_stats(self) -> dict[str, Any] | None:
        return self._stats


def _cause(exc: BaseException) -> BaseException:
    """The worker's own exception (so fatal errors stop the run as in the local engine)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc

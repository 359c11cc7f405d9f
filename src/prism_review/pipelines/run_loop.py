"""One run over a locked run folder, in the steps :func:`~prism_review.pipelines.runner.run_evaluation`
takes: the setup (manifest, results log, the resume messages), the work (each paper's units, in
source order), one unit, one pass over the source, the passes of a batch judge, and the finish
(closing the engine and judge, the manifest's totals).

A batch judge defers a unit whose call went into the pass's batch; the pass loop sends the batch,
reads it back and runs another pass, which resumes the deferred units (module doc of
:mod:`~prism_review.pipelines.runner`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from prism_review.atomic import write_text
from prism_review.dimensions.base import Dimension, RunContext, WorkUnit
from prism_review.dimensions.memo import MemoStore
from prism_review.judge.base import Judge
from prism_review.llm.batch import Deferred
from prism_review.pipelines.engines import Engine, LocalEngine
from prism_review.pipelines.grouping import grouped
from prism_review.pipelines.inputs import PROBLEM, issue, record_input_issues
from prism_review.pipelines.outcomes import FailureLog, is_fatal, stamp
from prism_review.pipelines.results import ResultsLog
from prism_review.pipelines.run_config import (
    EvalOptions,
    config_hash,
    read_manifest,
    run_settings,
    start_manifest,
)
from prism_review.pipelines.selection import norm_venues

if TYPE_CHECKING:
    from prism_review.pipelines.runner import Progress

#: the progress counters a new batch pass starts again from 0
_PASS_COUNTERS = ("units_total", "units_done", "units_skipped", "units_failed", "papers_total", "papers_done")


class RunResult(BaseModel):
    out: Path
    rows: int
    units_done: int
    units_skipped: int
    units_failed: int
    #: inputs that could not be read (file and field named); their reviews were skipped
    input_problems: list[str] = Field(default_factory=list)
    #: entries left out by design and counted (rating-only reviews, texts cut to the limits)
    input_skips: list[str] = Field(default_factory=list)
    seconds: float
    manifest: dict[str, Any]


class RunLoop:
    """The state of one run: made by :meth:`__init__` (the setup), driven by :meth:`run`."""

    def __init__(self, opts: EvalOptions, out: Path, judge: Judge, engine: Engine | None,
                 progress: Progress, log: Callable[[str], None],
                 inputs: tuple[Any, set[str], dict[str, list[str]] | None],
                 dims: list[Dimension], t0: float) -> None:
        self.opts, self.out, self.judge, self.progress, self.log = opts, out, judge, progress, log
        self.source, self.wanted_systems, self.sample = inputs
        self.dims, self.t0 = dims, t0
        self.chash = config_hash(opts, judge)
        self.manifest_path = out / "manifest.json"
        previous = read_manifest(self.manifest_path)
        self.manifest = start_manifest(opts, out, judge, self.chash, previous, self.source, dims)
        self.results = ResultsLog(out / "results.jsonl", self.chash)
        self._resume_messages(previous)
        self.ctx = RunContext(judge, settings=run_settings(opts), memo_store=MemoStore(out / "memo"))
        self.load_errors: list[dict[str, Any]] = []
        self.errors_path = out / "errors.jsonl"
        self.failures = FailureLog(self.errors_path)
        self.runtime = getattr(judge, "runtime", None)
        self.in_flight = opts.concurrency
        if callable(self.runtime):
            self.manifest["judge_runtime"] = self.runtime()
            transport = self.manifest["judge_runtime"].get("transport", {})
            self.in_flight = int(transport.get("concurrency") or self.in_flight)
        self.sem = asyncio.Semaphore(max(1, self.in_flight))
        self.engine: Engine = engine or LocalEngine(self.ctx)
        progress.judge_stats = lambda: self.engine.judge_stats() or _judge_stats(judge)
        self.stop = asyncio.Event()
        self.fatal: list[BaseException] = []
        self.failed = 0
        self.deferred = 0
        self.per_paper_left: dict[tuple[str, str], int] = {}
        self.batch = getattr(judge, "batch", None)
        self.tasks: set[asyncio.Task[None]] = set()
        self.first_pass, self.resumed = True, 0

    def _resume_messages(self, previous: dict[str, Any] | None) -> None:
        """Say what resuming the results log dropped or moved aside; count the moved lines."""
        results, log = self.results, self.log
        if results.dropped_rows:
            log(f"resume: dropped {results.dropped_rows} row(s) of units interrupted mid-write")
        for q in results.quarantined[:5]:
            log(f"resume: damaged line moved to {results.quarantine_path.name}: {q}")
        if len(results.quarantined) > 5:  # said once each up to five, then counted
            log(f"resume: {len(results.quarantined) - 5} more line(s) moved to "
                f"{results.quarantine_path.name}")
        self.manifest["quarantined_lines"] = (previous or {}).get("quarantined_lines", 0) + len(
            results.quarantined
        )

    async def run(self) -> RunResult:
        write_text(self.manifest_path, json.dumps(self.manifest, indent=2, default=str))
        try:
            await self._passes()
        finally:
            await self._finish()
        load_errors = self.load_errors
        return RunResult(
            out=self.out,
            rows=self.results.n_rows,
            units_done=self.progress.units_done,
            units_skipped=self.progress.units_skipped,
            units_failed=self.failed,
            input_problems=[e["error"] for e in load_errors if e["kind"] == PROBLEM],
            input_skips=[e["error"] for e in load_errors if e["kind"] != PROBLEM],
            seconds=time.perf_counter() - self.t0,
            manifest=self.manifest,
        )

    def work(self) -> Iterator[list[tuple[Dimension, WorkUnit]]]:
        """Each paper's work units, in source order (papers stream; nothing is listed up front)."""
        opts, progress = self.opts, self.progress
        venues = list(norm_venues(opts.venues)) or None
        for item in self.source.items(venues=venues, limit=opts.limit, sample=self.sample):
            for system, exc in item.errors if self.first_pass else ():
                self.load_errors.append(issue(PROBLEM, exc, venue=item.venue, paper_id=item.paper_id,
                                              system=system))
            if item.paper is None:
                continue
            item.meta.setdefault("title", item.paper.title or None)  # the report's search reads it
            progress.papers_total += 1
            systems = [s for s in item.reviews if not opts.systems or s in self.wanted_systems]
            units = []
            for dim in self.dims:
                for unit in dim.work_units(item.paper, item.reviews, systems):
                    unit.extra.setdefault("meta", item.meta)
                    units.append((dim, unit))
            yield units

    async def one(self, dim: Dimension, unit: WorkUnit) -> None:
        """Run one unit: its rows written, or it deferred (batch), failed (counted) or fatal."""
        if self.stop.is_set():
            return
        async with self.sem:
            if self.stop.is_set():
                return
            try:
                rows = await self.engine.evaluate(dim, unit)
                dim.check_rows(rows)  # a metric key it did not declare fails the unit, counted
            except Deferred:  # its call is in this pass's batch: finished on a later pass
                self.deferred += 1
                if self.batch is not None and self.batch.estimate_only:  # --dry-run: what the unit holds
                    self.batch.note_unit(dim.name, unit)
                return
            except Exception as exc:
                if is_fatal(exc):
                    self.stop.set()
                    self.fatal.append(exc)
                    return
                self.failed += 1
                self.progress.units_failed += 1
                self.failures.record(dim, unit, exc)
                self.progress.update()
                return
            for row in rows:
                stamp(row, dim, unit, self.judge, self.opts, self.chash)
            self.results.append_unit(rows)
            self._unit_written(unit)

    def _unit_written(self, unit: WorkUnit) -> None:
        progress = self.progress
        progress.units_done += 1
        key = (unit.venue, unit.paper_id)
        self.per_paper_left[key] -= 1
        if self.per_paper_left[key] == 0:
            progress.papers_done += 1
        progress.update()

    async def one_pass(self) -> None:
        """Every unit of the source not yet in the results log, a bounded window at a time."""
        progress, engine, tasks = self.progress, self.engine, self.tasks
        # units created but not finished: bounded, so a 47k-paper source streams in constant memory
        window = asyncio.Semaphore(max(64, 4 * self.in_flight, 2 * engine.slots))
        for units in grouped(self.work(), self.dims, self.ctx):  # groups sealed before any of their units runs
            if self.stop.is_set():
                break
            progress.units_total += len(units)
            pending = [(d, u) for d, u in units if not self.results.is_done(d.name, u.key)]
            progress.units_skipped += len(units) - len(pending)
            progress.units_done += len(units) - len(pending)
            if not pending:
                progress.papers_done += 1
                progress.update()
                continue
            pkey = (pending[0][1].venue, pending[0][1].paper_id)
            self.per_paper_left[pkey] = self.per_paper_left.get(pkey, 0) + len(pending)
            progress.update()
            for d, u in pending:
                await window.acquire()
                if self.stop.is_set():
                    window.release()
                    break
                engine.prefetch(d, u)  # e.g. its encoder runs, overlapping the units before it
                task = asyncio.create_task(self.one(d, u))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                task.add_done_callback(lambda _t: window.release())
        if tasks:
            await asyncio.gather(*tasks)

    async def _passes(self) -> None:
        """One pass, or with a batch judge as many as its deferred units need; a fatal error
        that stopped a unit is raised here."""
        engine, batch, progress = self.engine, self.batch, self.progress
        await engine.start()
        if engine.slots > 1:  # the engine's workers, not this process, bound the concurrency
            self.sem = asyncio.Semaphore(engine.slots)
        if batch is not None and not batch.estimate_only and await batch.resume():
            self.log("batch: read back the batches of the interrupted run")
        while True:
            self.deferred = 0
            await self.one_pass()
            if self.fatal or batch is None or not self.deferred or batch.estimate_only:
                break
            sent = await batch.flush()
            if not sent and not batch.live:  # a deferral always queues a call: never loop idle
                raise RuntimeError(f"{self.deferred} unit(s) deferred, but no call was queued")
            self.log(f"batch: {sent} call(s) answered; resuming {self.deferred} deferred unit(s)")
            if self.first_pass:
                self.first_pass, self.resumed = False, progress.units_skipped
            self.failed = 0  # the next pass counts every unit again (failed ones are retried)
            for name in _PASS_COUNTERS:
                setattr(progress, name, 0)
            self.per_paper_left.clear()
        if not self.first_pass:
            progress.units_skipped = self.resumed
        if self.fatal:
            raise self.fatal[0]

    async def _finish(self) -> None:
        """Whatever stopped the run: cancel what runs, keep what was written, close the engine
        and judge, and write the manifest's totals."""
        for t in list(self.tasks):
            t.cancel()
        with contextlib.suppress(OSError):  # a full disk must not hide the error that stopped us
            self.results.sync()
        self.failures.close()
        venues = list(norm_venues(self.opts.venues)) or None
        record_input_issues(self.source, self.load_errors, self.errors_path, self.log, venues)
        self.manifest["inputs_skipped"] = [e["error"] for e in self.load_errors]
        with contextlib.suppress(Exception):  # closing must never lose the run's results
            await self.engine.close()
        aclose = getattr(self.judge, "aclose", None)
        if callable(aclose):
            with contextlib.suppress(Exception):  # closing must never lose the run's results
                await aclose()
        if callable(self.runtime):
            self.manifest["judge_runtime"] = self.runtime()
        self.manifest["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        self.manifest["totals"] = self._totals()
        with contextlib.suppress(OSError):  # a full disk must not hide the error that stopped us
            write_text(self.manifest_path, json.dumps(self.manifest, indent=2, default=str))

    def _totals(self) -> dict[str, Any]:
        progress = self.progress
        return {
            "units": progress.units_total,
            "units_done": progress.units_done,
            "units_resumed": progress.units_skipped,
            "units_failed": progress.units_failed,
            "input_problems": sum(e["kind"] == PROBLEM for e in self.load_errors),
            "inputs_skipped": len(self.load_errors),
            "rows": self.results.n_rows,
            "usage": self.engine.usage() or self.ctx.usage.model_dump(),
            "judge_stats": progress.judge_stats(),
        }


def _judge_stats(judge: Judge) -> dict[str, Any]:
    """The LLM judge's live totals (the offline judge keeps none)."""
    stats = getattr(judge, "stats", None)
    return dict(stats.as_dict()) if stats is not None else {}

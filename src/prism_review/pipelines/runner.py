"""``prism evaluate``: run dimensions over every (venue, system, paper, review), resumably.

The runner owns iteration, concurrency, resume, progress and the run folder:

```
<out>/manifest.json   judge, models, settings, versions, config hash, totals
<out>/results.jsonl   the versioned results log (one row per review per dimension)
<out>/errors.jsonl    units that raised (retried on the next run; never written as results)
<out>/audit.jsonl     every LLM call (LLM judges only)
<out>/memo/           shared per-paper work (e.g. novelty's candidate pools)
<out>/summary.csv, summary.md, report.html
```

A unit is computed once: re-running the same command resumes, skipping every unit already in
the results log. With a batch judge (``--batch``) the run goes in passes: a unit whose call went
into the pass's batch is *deferred* (neither written nor failed), the batch is sent and read
back when the pass ends, and the next pass resumes the deferred units; ``<out>/batches.json``
keeps the batch ids (see :mod:`prism_review.llm.batch`). A run folder holding results of
different settings is refused rather than mixed (the config hash is checked).

What a run is asked to do and its manifest are in :mod:`~prism_review.pipelines.run_config`
(re-exported here), which names it selects in :mod:`~prism_review.pipelines.selection`, and
what a unit's outcome writes (row stamps, ``errors.jsonl``, which failures stop the run) in
:mod:`~prism_review.pipelines.outcomes`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from prism_review.atomic import write_text
from prism_review.dimensions.base import (
    Dimension,
    RunContext,
    WorkUnit,
    all_setting_specs,
    get_dimension,
)
from prism_review.dimensions.memo import MemoStore
from prism_review.dimensions.settings import SettingsError, check_settings
from prism_review.judge.base import Judge
from prism_review.llm.batch import Deferred
from prism_review.pipelines.engines import Engine, LocalEngine
from prism_review.pipelines.grouping import grouped
from prism_review.pipelines.inputs import PROBLEM, issue, record_input_issues
from prism_review.pipelines.outcomes import FailureLog, is_fatal, stamp
from prism_review.pipelines.results import ResultsLog
from prism_review.pipelines.run_config import (
    EvalOptions,
    RunSettingsError,
    config_hash,
    read_manifest,
    run_settings,
    start_manifest,
)
from prism_review.pipelines.run_folder import dry_run_folder, made_folder
from prism_review.pipelines.runlock import RunFolderBusy, RunLock
from prism_review.pipelines.selection import all_dimensions, norm_venues, select_systems

__all__ = [
    "EvalOptions",
    "Progress",
    "RunFolderBusy",
    "RunResult",
    "RunSettingsError",
    "build_judge",
    "config_hash",
    "read_manifest",
    "run_evaluation",
    "run_settings",
]


class Progress:
    """Counters the CLI's live display reads. Subclass or replace ``on_update``."""

    def __init__(self) -> None:
        self.units_total = 0
        self.units_done = 0
        self.units_skipped = 0
        self.units_failed = 0
        self.papers_total = 0
        self.papers_done = 0
        self.on_update: Callable[[Progress], None] | None = None
        #: the run's LLM call totals so far (``JudgeStats.as_dict``), the engine's workers' included
        self.judge_stats: Callable[[], dict[str, Any]] = dict

    def update(self) -> None:
        if self.on_update:
            self.on_update(self)


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


def build_judge(opts: EvalOptions) -> Judge:
    from prism_review.llm import make_judge

    return make_judge(opts.judge, **opts.judge_options)  # type: ignore[no-any-return]


async def run_evaluation(
    opts: EvalOptions,
    *,
    judge: Judge | None = None,
    engine: Engine | None = None,
    progress: Progress | None = None,
    log: Callable[[str], None] = lambda s: None,
) -> RunResult:
    """Run the evaluation described by ``opts``; resumable; returns counts and the manifest.

    The run folder is locked while the run writes to it (:class:`RunFolderBusy` otherwise)."""
    try:  # a misspelt key or an unknown value is an error, never a silent default
        check_settings(opts.settings, all_setting_specs())
    except SettingsError as exc:
        raise RunSettingsError(str(exc)) from None
    inputs = _inputs(opts)  # refused before the run folder is made: nothing is left behind
    progress = progress or Progress()
    if opts.judge_options.get("dry_run"):  # an estimate reads the folder, never writes to it
        try:
            with dry_run_folder(Path(opts.out)) as scratch, RunLock(scratch):
                return await _run(opts, scratch, judge, engine, progress, log, inputs)
        except RunSettingsError as exc:
            log(f"note: {exc}; the real run would be refused there. Estimated as a new folder:")
        with dry_run_folder(Path(opts.out), copy=False) as scratch, RunLock(scratch):
            return await _run(opts, scratch, judge, engine, progress, log, inputs)
    with made_folder(Path(opts.out)) as out, RunLock(out):
        return await _run(opts, out, judge, engine, progress, log, inputs)


def _inputs(opts: EvalOptions) -> tuple[Any, set[str], dict[str, list[str]] | None]:
    """The source, the selected systems and the sample, each checked (names, sample's venues)."""
    from prism_review.data.layout import demo_root
    from prism_review.data.source_kinds import LayoutSource
    from prism_review.data.sources import check_sample, open_source, read_sample

    source = open_source(opts.data) if opts.data else LayoutSource(demo_root())
    wanted_systems = select_systems(opts, source)  # unknown names raise UnknownNameError
    sample = read_sample(opts.sample) if opts.sample else None
    if sample is not None and opts.sample is not None:
        venues = set(norm_venues(opts.venues))
        check_sample(opts.sample, sample, [v for v in source.venues() if not venues or v in venues])
    return source, wanted_systems, sample


async def _run(
    opts: EvalOptions,
    out: Path,
    judge: Judge | None,
    engine: Engine | None,
    progress: Progress,
    log: Callable[[str], None],
    inputs: tuple[Any, set[str], dict[str, list[str]] | None],
) -> RunResult:
    t0 = time.perf_counter()
    source, wanted_systems, sample = inputs
    dims = [get_dimension(n) for n in (opts.dimensions or all_dimensions())]
    if judge is None:
        judge_opts = dict(opts.judge_options)
        if opts.judge != "offline":
            judge_opts.setdefault("audit_path", out / "audit.jsonl")
        if judge_opts.get("batch") is True:
            judge_opts["batch"] = out / "batches.json"
        judge = build_judge(opts.model_copy(update={"judge_options": judge_opts}))
    chash = config_hash(opts, judge)
    manifest_path = out / "manifest.json"
    previous = read_manifest(manifest_path)
    manifest = start_manifest(opts, out, judge, chash, previous, source, dims)
    results = ResultsLog(out / "results.jsonl", chash)
    if results.dropped_rows:
        log(f"resume: dropped {results.dropped_rows} row(s) of units interrupted mid-write")
    for q in results.quarantined[:5]:
        log(f"resume: damaged line moved to {results.quarantine_path.name}: {q}")
    if len(results.quarantined) > 5:  # said once each up to five, then counted
        log(f"resume: {len(results.quarantined) - 5} more line(s) moved to "
            f"{results.quarantine_path.name}")
    manifest["quarantined_lines"] = (previous or {}).get("quarantined_lines", 0) + len(
        results.quarantined
    )
    memo = MemoStore(out / "memo")
    ctx = RunContext(
        judge,
        settings=run_settings(opts),
        memo_store=memo,
    )

    load_errors: list[dict[str, Any]] = []
    errors_path = out / "errors.jsonl"
    failures = FailureLog(errors_path)
    runtime = getattr(judge, "runtime", None)
    in_flight = opts.concurrency
    if callable(runtime):
        manifest["judge_runtime"] = runtime()
        in_flight = int(manifest["judge_runtime"].get("transport", {}).get("concurrency") or in_flight)
    sem = asyncio.Semaphore(max(1, in_flight))
    engine = engine or LocalEngine(ctx)
    progress.judge_stats = lambda: engine.judge_stats() or _judge_stats(judge)
    stop = asyncio.Event()
    fatal: list[BaseException] = []
    failed = 0
    deferred = 0
    per_paper_left: dict[tuple[str, str], int] = {}
    batch = getattr(judge, "batch", None)

    def work() -> Iterator[list[tuple[Dimension, WorkUnit]]]:
        """Each paper's work units, in source order (papers stream; nothing is listed up front)."""
        venues = list(norm_venues(opts.venues)) or None
        for item in source.items(venues=venues, limit=opts.limit, sample=sample):
            for system, exc in item.errors if first_pass else ():
                load_errors.append(issue(PROBLEM, exc, venue=item.venue, paper_id=item.paper_id,
                                         system=system))
            if item.paper is None:
                continue
            item.meta.setdefault("title", item.paper.title or None)  # the report's search reads it
            progress.papers_total += 1
            systems = [s for s in item.reviews if not opts.systems or s in wanted_systems]
            units = []
            for dim in dims:
                for unit in dim.work_units(item.paper, item.reviews, systems):
                    unit.extra.setdefault("meta", item.meta)
                    units.append((dim, unit))
            yield units

    async def one(dim: Dimension, unit: WorkUnit) -> None:
        nonlocal failed, deferred
        if stop.is_set():
            return
        async with sem:
            if stop.is_set():
                return
            try:
                rows = await engine.evaluate(dim, unit)
                dim.check_rows(rows)  # a metric key it did not declare fails the unit, counted
            except Deferred:  # its call is in this pass's batch: finished on a later pass
                deferred += 1
                if batch is not None and batch.estimate_only:  # --dry-run: what the unit holds
                    batch.note_unit(dim.name, unit)
                return
            except Exception as exc:
                if is_fatal(exc):
                    stop.set()
                    fatal.append(exc)
                    return
                failed += 1
                progress.units_failed += 1
                failures.record(dim, unit, exc)
                progress.update()
                return
            for row in rows:
                stamp(row, dim, unit, judge, opts, chash)
            results.append_unit(rows)
            progress.units_done += 1
            key = (unit.venue, unit.paper_id)
            per_paper_left[key] -= 1
            if per_paper_left[key] == 0:
                progress.papers_done += 1
            progress.update()

    write_text(manifest_path, json.dumps(manifest, indent=2, default=str))
    tasks: set[asyncio.Task[None]] = set()
    first_pass, resumed = True, 0

    async def one_pass() -> None:
        # units created but not finished: bounded, so a 47k-paper source streams in constant memory
        window = asyncio.Semaphore(max(64, 4 * in_flight, 2 * engine.slots))
        for units in grouped(work(), dims, ctx):  # groups sealed before any of their units runs
            if stop.is_set():
                break
            progress.units_total += len(units)
            pending = [(d, u) for d, u in units if not results.is_done(d.name, u.key)]
            progress.units_skipped += len(units) - len(pending)
            progress.units_done += len(units) - len(pending)
            if not pending:
                progress.papers_done += 1
                progress.update()
                continue
            pkey = (pending[0][1].venue, pending[0][1].paper_id)
            per_paper_left[pkey] = per_paper_left.get(pkey, 0) + len(pending)
            progress.update()
            for d, u in pending:
                await window.acquire()
                if stop.is_set():
                    window.release()
                    break
                engine.prefetch(d, u)  # e.g. its encoder runs, overlapping the units before it
                task = asyncio.create_task(one(d, u))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                task.add_done_callback(lambda _t: window.release())
        if tasks:
            await asyncio.gather(*tasks)

    try:
        await engine.start()
        if engine.slots > 1:  # the engine's workers, not this process, bound the concurrency
            sem = asyncio.Semaphore(engine.slots)
        if batch is not None and not batch.estimate_only and await batch.resume():
            log("batch: read back the batches of the interrupted run")
        while True:
            deferred = 0
            await one_pass()
            if fatal or batch is None or not deferred or batch.estimate_only:
                break
            sent = await batch.flush()
            if not sent and not batch.live:  # a deferral always queues a call: never loop idle
                raise RuntimeError(f"{deferred} unit(s) deferred, but no call was queued")
            log(f"batch: {sent} call(s) answered; resuming {deferred} deferred unit(s)")
            if first_pass:
                first_pass, resumed = False, progress.units_skipped
            failed = 0  # the next pass counts every unit again (failed ones are retried)
            for name in ("units_total", "units_done", "units_skipped", "units_failed",
                         "papers_total", "papers_done"):
                setattr(progress, name, 0)
            per_paper_left.clear()
        if not first_pass:
            progress.units_skipped = resumed
        if fatal:
            raise fatal[0]
    finally:
        for t in list(tasks):
            t.cancel()
        with contextlib.suppress(OSError):  # a full disk must not hide the error that stopped us
            results.sync()
        failures.close()
        record_input_issues(source, load_errors, errors_path, log, list(norm_venues(opts.venues)) or None)
        manifest["inputs_skipped"] = [e["error"] for e in load_errors]
        with contextlib.suppress(Exception):  # closing must never lose the run's results
            await engine.close()
        aclose = getattr(judge, "aclose", None)
        if callable(aclose):
            with contextlib.suppress(Exception):  # closing must never lose the run's results
                await aclose()
        if callable(runtime):
            manifest["judge_runtime"] = runtime()
        manifest["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        manifest["totals"] = {
            "units": progress.units_total,
            "units_done": progress.units_done,
            "units_resumed": progress.units_skipped,
            "units_failed": progress.units_failed,
            "input_problems": sum(e["kind"] == PROBLEM for e in load_errors),
            "inputs_skipped": len(load_errors),
            "rows": results.n_rows,
            "usage": engine.usage() or ctx.usage.model_dump(),
            "judge_stats": progress.judge_stats(),
        }
        with contextlib.suppress(OSError):  # a full disk must not hide the error that stopped us
            write_text(manifest_path, json.dumps(manifest, indent=2, default=str))

    return RunResult(
        out=out,
        rows=results.n_rows,
        units_done=progress.units_done,
        units_skipped=progress.units_skipped,
        units_failed=failed,
        input_problems=[e["error"] for e in load_errors if e["kind"] == PROBLEM],
        input_skips=[e["error"] for e in load_errors if e["kind"] != PROBLEM],
        seconds=time.perf_counter() - t0,
        manifest=manifest,
    )


def _judge_stats(judge: Judge) -> dict[str, Any]:
    """The LLM judge's live totals (the offline judge keeps none)."""
    stats = getattr(judge, "stats", None)
    return dict(stats.as_dict()) if stats is not None else {}

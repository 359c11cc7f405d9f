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
:mod:`~prism_review.pipelines.outcomes`, and the run's steps (setup, passes, one unit, the
manifest's totals) in :mod:`~prism_review.pipelines.run_loop`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prism_review.dimensions.base import all_setting_specs, get_dimension
from prism_review.dimensions.settings import SettingsError, check_settings
from prism_review.judge.base import Judge
from prism_review.pipelines.engines import Engine
from prism_review.pipelines.run_config import (
    EvalOptions,
    RunSettingsError,
    config_hash,
    read_manifest,
    run_settings,
    with_run_paths,
)
from prism_review.pipelines.run_folder import dry_run_folder, made_folder
from prism_review.pipelines.run_loop import RunLoop, RunResult
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
    dims = [get_dimension(n) for n in (opts.dimensions or all_dimensions())]
    if judge is None:  # its audit log and batch file in the run folder
        judge = build_judge(with_run_paths(opts, out))
    return await RunLoop(opts, out, judge, engine, progress, log, inputs, dims, t0).run()



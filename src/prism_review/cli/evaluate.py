"""``prism evaluate``: run PRISM dimensions over a data folder and write a report."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from prism_review.cli.evaluate_options import console
from prism_review.cli.llm_options import setting


def _progress_table(progress: Any, t0: float) -> Table:
    import time

    stats = progress.judge_stats()  # the run's calls, the workers' included (--engine ray)

    def stat(name: str) -> Any:
        return stats.get(name, 0)

    from rich.progress_bar import ProgressBar

    t = Table.grid(padding=(0, 2))
    elapsed = time.perf_counter() - t0
    t.add_row(
        ProgressBar(total=max(progress.units_total, 1), completed=progress.units_done, width=24),
        _eta(progress, elapsed),
        f"[bold]papers[/] {progress.papers_done}/{progress.papers_total}",
        f"[bold]units[/] {progress.units_done}/{progress.units_total}"
        + (f" ({progress.units_skipped} resumed)" if progress.units_skipped else ""),
        f"[bold]failed[/] {progress.units_failed}",
        f"[bold]calls[/] {stat('calls')}",
        f"[bold]cache hits[/] {stat('cache_hits')}",
        f"[bold]tokens[/] {stat('prompt_tokens') + stat('completion_tokens')}",
        f"[bold]cost[/] ${float(stat('cost_usd')):.4f}",
        f"{elapsed:.1f}s",
    )
    return t


def _eta(progress: Any, elapsed: float) -> str:
    """Time left at the pace of the units computed so far (resumed units are not work)."""
    done = progress.units_done - progress.units_skipped
    left = progress.units_total - progress.units_done
    if left <= 0:
        return "[bold]ETA[/] 0s"
    if done <= 0 or elapsed <= 0:
        return "[bold]ETA[/] …"
    seconds = int(left * elapsed / done)
    return f"[bold]ETA[/] {seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"[bold]ETA[/] {seconds}s"


def evaluate(
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="Evaluation layout (DATA_ROOT), papers.parquet, a per-venue corpus folder or zip, "
            "or ProReviewer (detected by shape); default: the bundled demo",
        ),
    ] = None,
    sample: Annotated[
        Path | None, typer.Option("--sample", help="Only the papers of this `prism data sample` manifest")
    ] = None,
    engine: Annotated[str, typer.Option("--engine", help="Where units run: local | ray")] = "local",
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (--engine ray; default: start one here)")
    ] = None,
    workers: Annotated[
        int,
        typer.Option("--workers", min=1, help="Offline judge, --engine local: worker processes (e.g. 2 on 2 cores; 1: in this process)"),
    ] = 1,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Venue(s) to include (repeatable)")] = None,
    system: Annotated[list[str] | None, typer.Option("--system", help="System(s) to evaluate (repeatable)")] = None,
    dimension: Annotated[
        list[str] | None, typer.Option("--dimension", help="Dimension(s) to run, by name (repeatable; default every registered one; an unknown name lists them)")
    ] = None,
    judge: Annotated[
        str, typer.Option(
            "--judge",
            help="offline | openai/<model> | gemini/<model> (alias google/) | "
            "openai-compatible/<model>@<url> (alias vllm/) | ollama/<model>[@<url>] (docs/providers.md)",
        )
    ] = "offline",
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="Per venue, the first N papers in the source's order (--sample, else the "
            "200-paper manifest, else sorted ids), counted before --system filters reviews",
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run folder (re-run with the same folder to resume)")] = None,
    compat: Annotated[bool, typer.Option("--compat", help="Reproduce the original PRISM code's behaviour")] = False,
    protocol: Annotated[
        str,
        typer.Option("--protocol", help="Judge call pattern: economical (default: no repeated work, each call "
                     "holds one review, so a score does not depend on what else is in the run) | pooled (opt-in: "
                     "calls hold several reviews; cheaper, but scores depend on the other systems, papers and "
                     "order of the run) | reference (reproduces the reference's call pattern, with this project's prompts; for audits)"),
    ] = "economical",
    by_venue: Annotated[bool, typer.Option("--by-venue", help="Also print per-venue tables")] = False,
    concurrency: Annotated[
        int | None,
        typer.Option("--concurrency", callback=setting("concurrency"), help="LLM connections and units in flight (default: config/env, else 8)"),
    ] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="Judge config file (TOML/YAML)")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="LLM response cache folder")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM cache")] = False,
    max_errors: Annotated[int | None, typer.Option("--max-errors", callback=setting("max_errors"), help="Stop after this many failed calls (0: never stop)")] = None,
    rpm: Annotated[int | None, typer.Option("--rpm", callback=setting("rpm"), help="Requests-per-minute limit")] = None,
    tpm: Annotated[int | None, typer.Option("--tpm", callback=setting("tpm"), help="Tokens-per-minute limit")] = None,
    retrieval: Annotated[str | None, typer.Option("--retrieval", help="Novelty retrieval: local | s2 | none")] = None,
    index_dir: Annotated[Path | None, typer.Option("--index-dir", help="Local literature index (prism index build)")] = None,
    human_aggregation: Annotated[
        str | None, typer.Option("--human-aggregation", help="Novelty humans: per_review_mean | panel_concat")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Dimension setting KEY=VALUE (repeatable), e.g. flaws.reference=human, "
            "flaws.paper_chars=45000, novelty_policy=max, verdict_batch=1, s2_min_interval=1.5",
        ),
    ] = None,
    batch: Annotated[
        bool, typer.Option("--batch", help="Send the calls through the provider's Batch API at batch prices "
                           "(resumable; batch ids in <out>/batches.json)")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the estimated calls, tokens and cost per dimension; call no model")
    ] = False,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Write report.html")] = True,
    card: Annotated[
        Path | None, typer.Option("--card", help="Judge card to read (written by `prism agreement --judge J "
                                  "--card PATH`; default: the judge's, in <cache>/judge_cards/)")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live progress")] = False,
) -> None:
    """Evaluate reviews on PRISM's dimensions; resumable; writes results, summary and report."""
    from prism_review.cli.evaluate_options import build_run_judge, choose_engine, evaluate_options
    from prism_review.pipelines.run_config import with_run_paths

    opts = evaluate_options(
        data=data, sample=sample, out=out, venue=venue, system=system, dimension=dimension,
        judge=judge, limit=limit, compat=compat, protocol=protocol, by_venue=by_venue,
        engine=engine, concurrency=concurrency, base_url=base_url, config=config,
        cache_dir=cache_dir, no_cache=no_cache, max_errors=max_errors, rpm=rpm, tpm=tpm,
        retrieval=retrieval, index_dir=index_dir, human_aggregation=human_aggregation,
        set_=set_, batch=batch, dry_run=dry_run, card=card,
    )
    if dry_run and judge == "offline":
        console.print("dry run: the offline judge calls no model; the run costs nothing")
        return
    opts = with_run_paths(opts, opts.out)  # the judge's audit log and batch ids in the run folder
    the_judge = build_run_judge(opts)
    the_engine = choose_engine(opts, engine, address=address, workers=workers)
    result, progress = _run_live(opts, the_judge, the_engine, quiet=quiet)
    if dry_run:
        from prism_review.cli.estimate import print_estimate

        print_estimate(the_judge, batch=batch, done=result.units_done, resumed=result.units_skipped,
                       protocol=protocol)
        return
    _print_outputs(result, progress, by_venue=by_venue, html=report)
    _print_run_totals(result, the_judge)
    _exit_status(result, progress)


def _exit_status(result: Any, progress: Any) -> None:
    """Exit 1 when a unit failed (re-running retries it), an input could not be read or there
    was nothing to evaluate; else the run succeeded (exit 0)."""
    if result.units_failed:
        console.print(f"[yellow]{result.units_failed} unit(s) failed[/]: see {result.out}/errors.jsonl; re-run to retry them.")
        raise typer.Exit(1)
    if result.input_problems or progress.units_total == 0:
        raise typer.Exit(1)


def _run_live(opts: Any, the_judge: Any, the_engine: Any, *, quiet: bool) -> tuple[Any, Any]:
    """Run the evaluation, with the live progress on a terminal (unless ``quiet``); the result
    and the final counters. A run that stops is one line and its exit code (:func:`_stopped`)."""
    import time

    from prism_review.pipelines.runner import Progress, run_evaluation

    progress = Progress()
    t0 = time.perf_counter()

    def run() -> Any:
        return asyncio.run(
            run_evaluation(opts, judge=the_judge, engine=the_engine, progress=progress, log=console.print)
        )

    try:
        if quiet or not console.is_terminal:
            result = run()
        else:
            with Live(_progress_table(progress, t0), console=console, refresh_per_second=4) as live:
                progress.on_update = lambda p: live.update(_progress_table(p, t0))
                result = run()
                live.update(_progress_table(progress, t0))
    except Exception as exc:
        stopped = _stopped(exc)
        if stopped is None:
            raise
        raise stopped from exc
    console.print(_progress_table(progress, t0))
    return result, progress


def _stopped(exc: Exception) -> typer.Exit | None:
    """The exit of a run stopped by ``exc``, its one line printed: 2 for unusable settings, a
    busy or damaged run folder, bad data or an unknown name; 4 for a disk error; 3 for an error
    that stops every unit (finished units are kept; re-running resumes). None: a bug, raised."""
    from prism_review.atomic import disk_error
    from prism_review.guards.errors import DataError
    from prism_review.names import UnknownNameError
    from prism_review.pipelines.outcomes import is_fatal
    from prism_review.pipelines.results import ResultsLogError
    from prism_review.pipelines.runner import RunFolderBusy, RunSettingsError

    if isinstance(exc, RunSettingsError | RunFolderBusy | ResultsLogError | DataError | UnknownNameError):
        console.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True, highlight=False)
        return typer.Exit(2)
    if isinstance(exc, OSError):  # disk full, read-only folder: one line, finished units are kept
        console.print(f"[red]error:[/] {disk_error(exc)}", soft_wrap=True, highlight=False)
        return typer.Exit(4)
    if is_fatal(exc):
        console.print(f"[red]stopped:[/] {escape(str(exc))}", soft_wrap=True, highlight=False)
        console.print("Finished units are kept; re-run the same command to resume.")
        return typer.Exit(3)
    return None


def _print_outputs(result: Any, progress: Any, *, by_venue: bool, html: bool) -> None:
    """Write and print the run's tables (or say why there are none)."""
    from prism_review.atomic import disk_error
    from prism_review.report import write_run_outputs

    if (Path(result.out) / "results.jsonl").is_file():
        try:
            written = write_run_outputs(result.out, by_venue=by_venue, html=html)
        except OSError as exc:
            console.print(f"[red]error:[/] {disk_error(exc)}", soft_wrap=True, highlight=False)
            raise typer.Exit(4) from exc
        _print_tables(written, by_venue=by_venue, out_dir=Path(result.out), html=html)
        files = ["results.jsonl", "summary.csv", "summary.md"] + (["report.html"] if html else [])
        console.print(f"wrote {', '.join(files)} in {result.out}/")
    elif progress.units_total == 0:  # the selection held nothing to score: not a success
        console.print("[yellow]nothing to evaluate[/]: no selected paper has a review of the chosen "
                      "systems (--limit counts papers before --system filters reviews)", soft_wrap=True)
    else:  # every unit failed: no results, so no tables to write
        console.print(f"[yellow]no results yet[/]: no unit finished, so no summary or report in {result.out}/")


def _print_run_totals(result: Any, the_judge: Any) -> None:
    """The LLM calls' totals, settings that applied to nothing, the done line, skipped inputs."""
    if getattr(the_judge, "stats", None) is not None:  # LLM judges only
        # the run's totals, not this process's judge: under --engine ray the calls are the workers'
        from prism_review.llm.calls import JudgeStats

        totals = result.manifest.get("totals", {}).get("judge_stats")
        stats = JudgeStats.from_dict(totals) if totals else the_judge.stats
        console.print(stats.summary())
    unused = the_judge.unused_step_settings() if hasattr(the_judge, "unused_step_settings") else []
    if unused and result.units_done > result.units_skipped:  # steps ran, yet these never applied
        console.print(f"[yellow]warning:[/] per-step settings that matched no step of this run "
                      f"(misspelt step name?): {', '.join(unused)}", markup=True, highlight=False)
    console.print(
        f"[green]done[/] in {result.seconds:.1f}s: {result.units_done} units "
        f"({result.units_skipped} resumed, {result.units_failed} failed) → {result.out}/"
    )
    skipped = result.input_problems + result.input_skips
    if skipped:
        console.print(
            f"[yellow]{len(skipped)} input(s) skipped[/] ({len(result.input_problems)} input problem(s), "
            f"{len(result.input_skips)} counted skip(s); details in {result.out}/errors.jsonl):"
        )
        for msg in skipped[:10]:
            console.print(f"  - {msg}", soft_wrap=True, markup=False, highlight=False)


def _print_tables(written: Any, *, by_venue: bool, out_dir: Path, html: bool) -> None:
    """Table 1 (and per-venue tables) on stdout, aligned for a terminal, then how to read it."""
    from rich.console import Console as _Console

    from prism_review.pipelines.summary import markdown_table
    from prism_review.report.fidelity import run_note
    from prism_review.report.guide import table1_guide

    out = _Console()
    judge = written.manifest.get("judge", {}).get("judge", "?")
    mode = "compat" if written.manifest.get("compat") else "clean"
    note = run_note(written.manifest, written.dims)
    for i, (title, header, body) in enumerate(written.tables(by_venue=by_venue)):
        heading = f"{title} · judge {judge} · mode {mode}"
        if not out.is_terminal:  # a pipe or a log file: plain markdown, nothing cut
            typer.echo(f"{heading}\n\n{markdown_table(header, body)}\n")
        else:
            t = Table(title=heading, title_justify="left")
            for j, h in enumerate(header):
                t.add_column(h, justify="left" if j == 0 else "right", overflow="fold")
            for row in body:
                t.add_row(*row)
            out.print(t)
        if i == 0 and note:  # under Table 1: what the offline judge's numbers cannot be read as
            typer.echo("\n".join(note) + "\n")
    for line in table1_guide(written.summary, written.manifest, out_dir, html=html):
        out.print(line, soft_wrap=True, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate)

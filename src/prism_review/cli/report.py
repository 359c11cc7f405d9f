"""``prism report``: rebuild summary tables and the HTML report of a run from its results log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report(
    run: Annotated[
        Path, typer.Argument(help="Run folder written by prism evaluate, or its results.jsonl")
    ],
    by_venue: Annotated[bool, typer.Option("--by-venue", help="Add per-venue tables")] = False,
    html: Annotated[bool, typer.Option("--html/--no-html", help="Write report.html")] = True,
    card: Annotated[
        Path | None, typer.Option("--card", help="Judge card to read (written by `prism agreement --judge J "
                                  "--card PATH`; kept in the run's manifest for later re-renders)")
    ] = None,
) -> None:
    """Re-render summary.csv, summary.md and report.html without calling any judge."""
    from prism_review.pipelines.results import ResultsLogError
    from prism_review.report import write_run_outputs
    from prism_review.report.guide import table1_guide

    if run.is_file():  # the results log itself: its folder is the run
        if run.name != "results.jsonl":
            typer.echo(f"error: {run} is a file but not a run's results.jsonl", err=True)
            raise typer.Exit(2)
        run = run.parent
    if card is not None:
        card = _given_card(run, card)
    try:
        written = write_run_outputs(run, by_venue=by_venue, html=html, card=card)
    except (FileNotFoundError, ResultsLogError) as exc:  # not a run folder, no finished unit,
        # or a damaged line in the log
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    except OSError as exc:  # a read-only folder, a full disk: one line, the results log is kept
        from prism_review.atomic import disk_error

        typer.echo(f"error: {disk_error(exc)}", err=True)
        raise typer.Exit(4) from exc
    typer.echo(written.markdown)
    for line in table1_guide(written.summary, written.manifest, run, html=html):
        typer.echo(line)


def _given_card(run: Path, card: Path) -> Path:
    """``--card`` names a readable card of the run's judge (else exit 2)."""
    from prism_review.report.judge_card import CardError, given_card, judge_of, run_manifest

    try:
        return given_card(card, judge_of(run_manifest(run)))
    except CardError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def register(app: typer.Typer) -> None:
    """Mount ``prism report``."""
    app.command("report")(report)

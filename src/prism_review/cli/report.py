"""``prism report``: rebuild summary tables and the HTML report of a run from its results log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report(
    run: Annotated[Path, typer.Argument(help="Run folder written by prism evaluate")],
    by_venue: Annotated[bool, typer.Option("--by-venue", help="Add per-venue tables")] = False,
    html: Annotated[bool, typer.Option("--html/--no-html", help="Write report.html")] = True,
) -> None:
    """Re-render summary.csv, summary.md and report.html without calling any judge."""
    from prism_review.report import write_run_outputs

    typer.echo(write_run_outputs(run, by_venue=by_venue, html=html).markdown)
    if html:
        typer.echo(f"report: {run / 'report.html'}")


def register(app: typer.Typer) -> None:
    app.command("report")(report)

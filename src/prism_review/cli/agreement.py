"""``prism agreement``: measure a judge (offline or LLM) against human labels."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer


def agreement(
    dataset: Annotated[
        str,
        typer.Option(
            "--dataset",
            help="disapere | disapere-novelty | substanreview | revutil | revutil-llm-reviews | perturbation-verifier",
        ),
    ],
    file: Annotated[Path, typer.Option("--file", help="Human-labelled JSONL file (see shared/data/README.md)")],
    judge: Annotated[str, typer.Option("--judge", help="offline | openai/<model> | gemini/<model> | ...")] = "offline",
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N records")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one flat JSON object")] = False,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="Judge config file")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency")] = 8,
) -> None:
    """Print per-task agreement metrics (macro-F1, Spearman, accuracy) with counts."""
    from prism_review.agreement import get_dataset
    from prism_review.llm import make_judge

    if not file.exists():
        typer.echo(f"error: {file} does not exist", err=True)
        raise typer.Exit(2)
    try:
        measure = get_dataset(dataset)
    except KeyError as exc:
        typer.echo(f"error: {exc.args[0]}", err=True)
        raise typer.Exit(2) from exc
    opts: dict[str, Any] = {"concurrency": concurrency}
    if base_url:
        opts["base_url"] = base_url
    if config:
        opts["config_path"] = config
    try:
        the_judge = make_judge(judge, **opts)  # "offline" ignores the LLM options
    except Exception as exc:  # bad spec or missing key: a message, not a traceback
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc

    async def _measure() -> dict[str, Any]:
        return dict(await measure(file, the_judge, limit))

    from prism_review.progress import showing

    with showing():
        measured = asyncio.run(_measure())
    metrics: dict[str, Any] = {"judge": judge, **measured}
    if judge == "offline":
        from prism_review.agreement import offline_training_overlap

        overlap = offline_training_overlap(file)
        if overlap:
            metrics["warning"] = f"in-sample: the offline judge was trained or tuned on this file ({overlap})"
            typer.echo(f"warning: {metrics['warning']}", err=True)
    if as_json:
        typer.echo(json.dumps(metrics, sort_keys=True))
        return
    width = max(len(k) for k in metrics)
    for k, v in metrics.items():
        val = f"{v:.4f}" if isinstance(v, float) else str(v)
        typer.echo(f"{k.ljust(width)}  {val}")


def register(app: typer.Typer) -> None:
    app.command("agreement")(agreement)

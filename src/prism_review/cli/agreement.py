"""``prism agreement``: measure a judge (offline or LLM) against human labels."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from prism_review.cli.llm_options import setting


def agreement(
    dataset: Annotated[
        str,
        typer.Option(
            "--dataset",
            help="disapere | disapere-novelty | substanreview | revutil | revutil-llm-reviews | "
            "perturbation-verifier | all (each on its standard file, then the offline judge's fidelity card)",
        ),
    ],
    file: Annotated[
        Path | None,
        typer.Option("--file", help="Human-labelled JSONL file (see shared/data/README.md); with "
                     "--dataset all, the shared data folder (default: the one beside the clone)"),
    ] = None,
    judge: Annotated[str, typer.Option("--judge", help="offline | openai/<model> | gemini/<model> | ...")] = "offline",
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N records")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one flat JSON object")] = False,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="Judge config file")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", callback=setting("concurrency"))] = 8,
    card: Annotated[
        Path | None,
        typer.Option("--card", help="Judge card to record the figures in (default: <cache>/judge_cards/<judge>.json "
                     "for an LLM judge, which prism evaluate reads; the offline judge's card ships)"),
    ] = None,
) -> None:
    """Print per-task agreement metrics (macro-F1, Spearman, accuracy) with counts."""
    from prism_review.agreement import get_dataset

    if dataset == "all":
        _all(file, judge, limit, as_json, base_url, config, concurrency, card)
        return
    try:  # the name first: a misspelt dataset is not a missing --file
        measure = get_dataset(dataset)
    except KeyError as exc:
        typer.echo(f"error: {exc.args[0]}", err=True)
        raise typer.Exit(2) from exc
    if file is None:
        typer.echo("error: --file is required (except with --dataset all)", err=True)
        raise typer.Exit(2)
    if not file.exists():
        typer.echo(f"error: {file} does not exist", err=True)
        raise typer.Exit(2)
    the_judge = _judge(judge, base_url, config, concurrency)

    async def _measure() -> dict[str, Any]:
        return dict(await measure(file, the_judge, limit))

    from prism_review.progress import showing

    with showing():
        measured = _run(_measure, file=file, dataset=dataset)
    metrics: dict[str, Any] = {"judge": judge, **measured}
    _warn_in_sample(metrics, file, judge)
    _record(judge, dataset, file, measured, the_judge, card, metrics.get("warning"))
    if as_json:
        typer.echo(json.dumps(metrics, sort_keys=True))
    else:
        _print_metrics(metrics)
    if _nothing_measured(measured):
        typer.echo(f"error: nothing measured: no record of {file} gave a {dataset} label", err=True)
        raise typer.Exit(1)


def _judge(spec: str, base_url: str | None, config: Path | None, concurrency: int) -> Any:
    """The judge both agreement commands measure; a bad spec or a missing key is one line and
    exit 2, not a traceback ("offline" ignores the LLM options)."""
    from prism_review.llm import make_judge

    opts: dict[str, Any] = {"concurrency": concurrency}
    if base_url:
        opts["base_url"] = base_url
    if config:
        opts["config_path"] = config
    try:
        return make_judge(spec, **opts)
    except Exception as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def _run(fn: Callable[[], Coroutine[Any, Any, dict[str, Any]]], *, file: Path,
         dataset: str) -> dict[str, Any]:
    """``fn()`` run to the end; a judge that cannot be reached or keeps failing (no reply, bad
    key, too many errors) ends the command with one line and exit code 3, not a traceback; a
    file that is not of the dataset's format (bad JSON, a record without a field the dataset
    reads) with one line naming file, line and field, and exit code 2."""
    from prism_review.guards.errors import DataError
    from prism_review.llm.errors import FatalProviderError, TooManyErrors, TransportError

    try:
        return asyncio.run(fn())
    except (FatalProviderError, TransportError, TooManyErrors) as exc:
        typer.echo(f"error: the judge failed, nothing was measured: {exc}", err=True)
        raise typer.Exit(3) from exc
    except DataError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    except (KeyError, TypeError, AttributeError) as exc:
        typer.echo(f"error: {_bad_record(file, exc)} (not the {dataset} label format; see "
                   "shared/data/README.md)", err=True)
        raise typer.Exit(2) from exc


def _bad_record(file: Path, exc: Exception) -> str:
    """Where a label file lacks what its loader read: the first record without the missing
    top-level key, when the error names one that some record lacks."""
    from prism_review.data.jsonl import iter_jsonl
    from prism_review.data.skips import SkipLog

    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
    if isinstance(key, str):
        for lineno, row in iter_jsonl(file, SkipLog()):
            if key not in row:
                return f"{file} [line {lineno}] (field {key!r}): missing"
        return f"{file} (field {key!r}): missing in a record"
    return f"{file}: a record has a field of the wrong type ({type(exc).__name__}: {exc})"


def _nothing_measured(measured: dict[str, Any]) -> bool:
    """True when every agreement figure (the keys that are not counts) is null."""
    figures = [v for k, v in measured.items() if not k.startswith("n.") and k not in {"file", "warning"}]
    return bool(figures) and all(v is None for v in figures)


def _warn_in_sample(metrics: dict[str, Any], file: Path, judge: str) -> None:
    if judge == "offline":
        from prism_review.agreement.in_sample import offline_training_overlap

        overlap = offline_training_overlap(file)
        if overlap:
            metrics["warning"] = f"in-sample: the offline judge was trained or tuned on this file ({overlap})"
            typer.echo(f"warning: {metrics['warning']}", err=True)


def _record(spec: str, dataset: str, file: Path, measured: dict[str, Any], the_judge: Any,
            card: Path | None, in_sample: str | None) -> None:
    """Keep what was measured in the judge's card (LLM judges, or any judge with ``--card``)."""
    if spec == "offline" and card is None:
        return
    from prism_review.report.card_record import record

    written = record(spec, dataset, file, measured, judge=the_judge, card=card, in_sample=in_sample)
    if written is not None:
        typer.echo(f"judge card: recorded {dataset} for {spec} in {written}", err=True)


def _print_metrics(metrics: dict[str, Any]) -> None:
    width = max(len(k) for k in metrics)
    for k, v in metrics.items():
        val = f"{v:.4f}" if isinstance(v, float) else str(v)
        typer.echo(f"{k.ljust(width)}  {val}")


def _all(
    folder: Path | None,
    judge: str,
    limit: int | None,
    as_json: bool,
    base_url: str | None,
    config: Path | None,
    concurrency: int,
    card_path: Path | None = None,
) -> None:
    """Every built-in dataset on its standard file under ``folder``, then the fidelity card.
    A missing file is said and counted (exit 1), never silently left out."""
    from prism_review.agreement import DEFAULT_FILES, get_dataset
    from prism_review.agreement.held_out import held_out
    from prism_review.report.fidelity import CardError, render_card
    from prism_review.shared_folder import DATA

    root = folder if folder is not None else DATA
    the_judge = _judge(judge, base_url, config, concurrency)
    results: dict[str, Any] = {}  # held-out-style figures: dev files, cross-validated
    in_sample: dict[str, Any] = {}  # fit, not agreement: apart, labelled
    missing: list[str] = []
    for name, rel in DEFAULT_FILES.items():
        path = root / rel
        if not path.is_file():
            missing.append(f"{name}: {path} does not exist")
            continue
        measure = get_dataset(name)

        async def _measure(p: Path = path, fn: Any = measure) -> dict[str, Any]:
            return dict(await fn(p, the_judge, limit))

        metrics: dict[str, Any] = {"file": str(path), **_run(_measure, file=path, dataset=name)}
        _warn_in_sample(metrics, path, judge)
        _record(judge, name, path, metrics, the_judge, card_path, metrics.get("warning"))
        if not metrics.get("warning"):
            results[name] = metrics
        else:
            in_sample[name] = metrics

            async def _held(p: Path = path, n: str = name) -> dict[str, Any]:
                return await held_out(n, p, limit) or {}

            cv = _run(_held, file=path, dataset=name)
            if cv:
                results[name] = {"file": str(path), **cv}
        if not as_json and name in results:
            proto = results[name].get("protocol")
            typer.echo(f"## {name} ({path}) · judge {judge}" + (f" · {proto}" if proto else ""))
            _print_metrics({k: v for k, v in results[name].items() if k not in {"file", "protocol"}})
            typer.echo("")
    if in_sample and not as_json:
        typer.echo("== In-sample figures: the offline judge was trained or tuned on these files, so they "
                   "measure fit, not agreement (do not quote them; the held-out-style figures are above) ==")
        for name, metrics in in_sample.items():
            typer.echo(f"## in-sample · {name} ({metrics['file']}) · judge {judge}")
            _print_metrics({k: v for k, v in metrics.items() if k != "file"})
            typer.echo("")
    from prism_review.report.judge_card import card_file, card_for

    try:  # the offline judge's shipped card, else the card this command just recorded for the judge
        card = card_for(judge, card_path)
    except CardError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    source = None if judge == "offline" and card_path is None else str(card_path or card_file(judge))
    if as_json:
        out = {
            "judge": judge,
            "held_out": results,  # held-out-style: dev files and cross-validated figures
            "in_sample": in_sample,  # measured on files the judge was trained or tuned on
            "skipped": missing,
            "fidelity_card": [
                {"dimension": e.dimension, "metric": e.metric, "label": e.label, "class": e.cls,
                 "figure": e.figure, "command": e.command, "status": e.status, "owner": e.owner}
                for e in (card.entries if card else ())
            ],
            "card_file": source,
        }
        typer.echo(json.dumps(out, sort_keys=True))
    elif card is None:
        typer.echo(f"No judge card for {judge} yet: no dataset measured a column ({source})")
    else:
        typer.echo(render_card(card, source))
    for m in missing:
        typer.echo(f"skipped: {m}", err=True)
    if missing:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("agreement")(agreement)

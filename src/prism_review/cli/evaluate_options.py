"""``prism evaluate``'s options checked before anything runs: the :class:`EvalOptions` of the run,
its judge and its engine, or one ``error:`` line and exit 2.

:mod:`prism_review.cli.evaluate` holds the command (its options, the live progress, the
exit codes of a run that stopped, the printed results); this module is what it does first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from prism_review.judge.base import Judge
    from prism_review.pipelines.engines import Engine
    from prism_review.pipelines.run_config import EvalOptions

console = Console(stderr=True)


def refusal(text: str, **print_options: Any) -> typer.Exit:
    """Print ``error: text`` and return the exit (2) to raise."""
    console.print(f"[red]error:[/] {text}", **print_options)
    return typer.Exit(2)


def evaluate_options(
    *,
    data: Path | None,
    sample: Path | None,
    out: Path | None,
    venue: list[str] | None,
    system: list[str] | None,
    dimension: list[str] | None,
    judge: str,
    limit: int | None,
    compat: bool,
    protocol: str,
    by_venue: bool,
    engine: str,
    concurrency: int | None,
    base_url: str | None,
    config: Path | None,
    cache_dir: Path | None,
    no_cache: bool,
    max_errors: int | None,
    rpm: int | None,
    tpm: int | None,
    retrieval: str | None,
    index_dir: Path | None,
    human_aggregation: str | None,
    set_: list[str] | None,
    batch: bool,
    dry_run: bool,
    card: Path | None = None,
) -> EvalOptions:
    """The run's options, each checked (exit 2 with one line on the first bad one). The judge's
    run-folder paths are not set here (:func:`~prism_review.pipelines.run_config.with_run_paths`)."""
    from prism_review.dimensions.protocol import PROTOCOLS
    from prism_review.names import closest_first
    from prism_review.pipelines.run_config import EvalOptions

    _check_human_aggregation(human_aggregation)
    judge_options: dict[str, Any] = _given({
        "base_url": base_url,
        "config_path": config,
        "cache_dir": cache_dir,
        "no_cache": no_cache or None,
        "max_errors": max_errors,
        "rpm": rpm,
        "tpm": tpm,
        "concurrency": concurrency,
        "batch": batch or None,
        "dry_run": dry_run or None,
    })
    settings = _given({
        "retrieval": retrieval,
        "index_dir": str(index_dir) if index_dir else None,
        "human_aggregation": human_aggregation,
    })
    _check_files(config, index_dir)
    card = _check_card(card, judge)
    settings.update(_set_options(set_))
    if protocol not in PROTOCOLS:
        raise refusal(f"unknown --protocol {protocol!r}; valid protocols (closest "
                      f"first): {', '.join(closest_first(protocol, PROTOCOLS))}")
    out_dir = out or Path("runs") / (data.name if data else "demo")
    if out_dir.exists() and not out_dir.is_dir():  # else "File exists ... free space" (exit 4)
        raise refusal(f"--out {escape(str(out_dir))} is a file, not a run folder",
                      soft_wrap=True, highlight=False)
    if batch and (engine != "local" or judge == "offline"):
        raise refusal("--batch needs an LLM judge and --engine local")
    if dry_run and judge != "offline":
        judge_options["api_key"] = "dry-run-sends-nothing"  # nothing is sent, so no key is needed
    return EvalOptions(
        data=data,
        out=out_dir,
        venues=venue or [],
        systems=system or [],
        dimensions=dimension or [],
        judge=judge,
        judge_options=judge_options,
        limit=limit,
        sample=sample,
        compat=compat,
        protocol=protocol,  # type: ignore[arg-type]
        by_venue=by_venue,
        concurrency=concurrency or 8,
        settings=settings,
        card=card,
    )


def _given(options: dict[str, Any]) -> dict[str, Any]:
    """The options the user gave (None: not given)."""
    return {k: v for k, v in options.items() if v is not None}


def _check_human_aggregation(value: str | None) -> None:
    if value is None:
        return
    from prism_review.dimensions.novelty import AGG_MODES
    from prism_review.names import UnknownNameError, check_choice

    try:
        check_choice("--human-aggregation value", value, AGG_MODES)
    except UnknownNameError as exc:
        raise refusal(escape(str(exc)), soft_wrap=True, highlight=False) from exc


def _check_files(config: Path | None, index_dir: Path | None) -> None:
    """``--config`` and ``--index-dir`` name what is there."""
    if config is not None and not config.is_file():  # the offline judge would ignore it unsaid
        raise refusal(f"config file not found: {escape(str(config))}", soft_wrap=True, highlight=False)
    if index_dir is not None:
        from prism_review.retrieval.local_index import MANIFEST

        if not (index_dir / MANIFEST).is_file():  # else every novelty unit fails on its own
            raise refusal(f"--index-dir {escape(str(index_dir))}: no prism literature index there "
                          "(build one with `prism index build`)", soft_wrap=True, highlight=False)


def _check_card(card: Path | None, judge: str) -> Path | None:
    """``--card`` names a readable card of this judge (its absolute path, for the manifest)."""
    if card is None:
        return None
    from prism_review.report.judge_card import CardError, given_card

    try:
        return given_card(card, judge)
    except CardError as exc:
        raise refusal(escape(str(exc)), soft_wrap=True, highlight=False) from exc


def _set_options(items: list[str] | None) -> dict[str, Any]:
    """The ``--set KEY=VALUE`` settings, in order (a later one of the same key wins)."""
    settings: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise refusal(f"--set expects KEY=VALUE, got {item!r}")
        settings[key.strip()] = setting_value(value.strip())
    return settings


def setting_value(text: str) -> Any:
    """``--set`` values: numbers and true/false become numbers and booleans, the rest stays text."""
    low = text.lower()
    if low in {"true", "false"}:
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def build_run_judge(opts: EvalOptions) -> Judge:
    """The run's judge (a bad provider spec or a missing key: one line, exit 2, no traceback)."""
    from prism_review.pipelines.runner import build_judge

    try:
        return build_judge(opts)
    except Exception as exc:
        from prism_review.llm.credentials import mask_urls

        raise refusal(escape(mask_urls(str(exc))), highlight=False) from exc


def choose_engine(opts: EvalOptions, engine: str, *, address: str | None, workers: int) -> Engine | None:
    """Where the units run: None for this process, worker processes (``--workers N``, offline
    judge) or a Ray cluster (``--engine ray``)."""
    from prism_review.names import closest_first
    from prism_review.pipelines.engines import ENGINES

    if engine not in ENGINES:
        raise refusal(f"unknown --engine {engine!r}; valid engines (closest "
                      f"first): {', '.join(closest_first(engine, ENGINES))}")
    the_engine: Engine | None = None
    if workers != 1:
        if engine != "local" or opts.judge != "offline" or workers < 1:
            raise refusal("--workers N (N ≥ 1) runs the offline judge with --engine local")
        from prism_review.pipelines.process_engine import ProcessEngine

        the_engine = ProcessEngine(opts, workers)
    if engine == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise refusal('--engine ray needs Ray: pip install "prism-review\\[ray]"') from None
        from prism_review.pipelines.ray_engine import RayEngine

        the_engine = RayEngine(opts, address=address)
    return the_engine

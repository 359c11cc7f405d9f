"""What the commands that need an LLM share: the judge options, building the judge (``offline``
is refused: these commands have no offline judge), running a coroutine with progress bars and
turning a stopped provider into exit 3, and error messages on stderr.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

console = Console(stderr=True)


def setting(field: str) -> Any:
    """A typer callback checking an option against the range of the judge setting ``field``
    (:func:`prism_review.llm.settings.check_setting`, the check the config file and the
    environment get): a bad value is a usage error (exit 2) before anything runs."""

    def check(value: Any) -> Any:
        from prism_review.llm.errors import ConfigError
        from prism_review.llm.settings import check_setting  # not at import: the CLI starts fast

        try:
            return check_setting(field, value, "option")
        except ConfigError as exc:
            raise typer.BadParameter(str(exc).removeprefix("option: ")) from None

    return check


JudgeOpt = Annotated[str, typer.Option("--judge", help="openai/<model> | gemini/<model> | openai-compatible/<model>@<url>")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="Judge config file (TOML/YAML)")]
CacheOpt = Annotated[Path | None, typer.Option("--cache-dir", help="LLM response cache folder")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM cache")]
ConcOpt = Annotated[int, typer.Option("--concurrency", callback=setting("concurrency"), help="Items in flight")]
MaxErrOpt = Annotated[int | None, typer.Option("--max-errors", callback=setting("max_errors"), help="Stop after this many failed calls (0: never stop)")]
AuditOpt = Annotated[Path | None, typer.Option("--audit", help="Write every LLM call to this JSONL audit log")]
DataOpt = Annotated[Path | None, typer.Option("--data", help="Evaluation layout, papers.parquet, corpus venue folder/zip or ProReviewer (by shape); default: the bundled demo")]
ProOpt = Annotated[Path | None, typer.Option("--proreviewer", help="ProReviewer parquet/arrow/JSONL file or folder")]
VenueOpt = Annotated[list[str] | None, typer.Option("--venue", help="Venue(s) (repeatable)")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, help="At most N papers per venue (per split for ProReviewer)")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Folder for results.json and predictions.jsonl")]
CharsOpt = Annotated[int, typer.Option("--max-paper-chars", help="Paper text budget in characters (0: no limit)")]


def fail(msg: str, code: int = 2) -> typer.Exit:
    console.print(f"[red]error:[/] {msg}")
    return typer.Exit(code)


def llm_judge(spec: str, *, what: str, base_url: str | None = None, config: Path | None = None,
           cache_dir: Path | None = None, no_cache: bool = False, concurrency: int | None = None,
           max_errors: int | None = None, audit: Path | None = None) -> Any:  # fmt: skip
    """Build the LLM judge, refusing ``offline`` (these commands need an LLM)."""
    if spec.strip() == "offline":
        from prism_review.llm.provider import judge_forms  # not at import: the CLI starts fast

        raise fail(
            f"{what} needs an LLM; there is no offline judge for it. Pass --judge "
            f"{judge_forms(' or ')}."
        )
    from prism_review.llm import make_judge

    opts = {"base_url": base_url, "config_path": config, "cache_dir": cache_dir,
            "no_cache": no_cache or None, "concurrency": concurrency, "max_errors": max_errors,
            "audit_path": audit}  # fmt: skip
    try:
        return make_judge(spec, **{k: v for k, v in opts.items() if v is not None})
    except Exception as exc:  # bad spec or missing key: a message, not a traceback
        raise fail(str(exc)) from exc


def run_llm(coro: Any) -> Any:
    from prism_review.llm.errors import FatalProviderError, TooManyErrors, TransportError
    from prism_review.progress import showing

    try:
        with showing():
            return asyncio.run(coro)
    except (FatalProviderError, TooManyErrors, TransportError) as exc:  # no reply: not a result
        raise fail(f"stopped: {exc}. Finished items are kept; re-run to resume.", 3) from exc

"""``prism evaluate`` run in-process against a loopback judge (:class:`~.llm_server.LLMServer`),
the way the CLI tests run it: ``evaluate(server.base_url, out, cache, "--limit", "2")``."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def evaluate(base_url: str, out: Path, cache: Path, *extra: str) -> Any:
    """The ``click`` result of ``prism evaluate`` with the loopback judge at ``base_url``, the
    run written to ``out`` and its replies cached in ``cache`` (quiet, no report), then
    ``extra``."""
    from typer.testing import CliRunner

    from prism_review.cli import app

    return CliRunner().invoke(app, [
        "evaluate", "--judge", f"openai-compatible/test-model@{base_url}", "--out", str(out),
        "--cache-dir", str(cache), "--quiet", "--no-report", *extra])

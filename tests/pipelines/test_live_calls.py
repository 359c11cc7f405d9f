"""The live progress of an LLM run counts the run's calls, wherever the units ran: under
``--engine ray`` the calls are made in the workers, and the driver's own judge makes none (the
display read it, so it showed 0 calls for a run that spent thousands)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from prism_review.cli import app


def _run(llm_server: Any, out: Path, monkeypatch: pytest.MonkeyPatch, *engine: str) -> tuple[str, list[int]]:
    """The CLI on a terminal (so its live display runs): its output and the calls each live
    refresh showed."""
    from prism_review.cli import evaluate as cli

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    buf = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=buf, force_terminal=True, width=400))
    shown: list[int] = []
    table = cli._progress_table

    def recording(*args: Any) -> Any:
        t = table(*args)
        text = io.StringIO()
        Console(file=text, width=400).print(t)
        shown.append(int(re.search(r"calls (\d+)", text.getvalue()).group(1)))  # type: ignore[union-attr]
        return t

    monkeypatch.setattr(cli, "_progress_table", recording)
    res = CliRunner().invoke(app, [
        "evaluate", "--judge", f"openai-compatible/test-model@{llm_server.base_url}",
        "--dimension", "depth", "--limit", "2", "--no-cache",
        "--no-report", "--out", str(out), *engine,
    ])  # fmt: skip
    assert res.exit_code == 0, res.output + buf.getvalue()
    return buf.getvalue(), shown


def _manifest_calls(out: Path) -> int:
    return int(json.loads((out / "manifest.json").read_text())["totals"]["judge_stats"]["calls"])


def _check(out: Path, shown: list[int]) -> int:
    calls = _manifest_calls(out)
    assert calls > 0
    assert shown[-1] == calls  # the final table counts every call
    assert shown == sorted(shown)  # the live count only grows ...
    assert len({n for n in shown if 0 < n < calls}) >= 1  # ... and moved while the run ran
    return calls


def test_the_live_display_counts_the_calls_of_the_local_engine(llm_server, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _, shown = _run(llm_server, tmp_path / "local", monkeypatch)
    _check(tmp_path / "local", shown)


def test_the_live_display_counts_the_ray_workers_calls(llm_server, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    _, local_shown = _run(llm_server, tmp_path / "local", monkeypatch)
    local_calls = _check(tmp_path / "local", local_shown)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        _, shown = _run(llm_server, tmp_path / "ray", monkeypatch, "--engine", "ray")
    finally:
        ray.shutdown()
    assert _check(tmp_path / "ray", shown) == local_calls

"""``prism agreement`` with an LLM judge that cannot be reached: one line, exit code 3."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.testing.shared import DATA


def _closed_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens there (loopback only)
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("dataset", [
    pytest.param(name, marks=pytest.mark.skipif(
        not (DATA / f"labels/{name}/dev.jsonl").is_file(), reason="shared labels not present"))
    for name in ["disapere", "revutil"]
])
def test_unreachable_judge_is_one_line_and_a_failure(monkeypatch, dataset):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    res = CliRunner().invoke(app, [
        "agreement", "--dataset", dataset, "--file", str(DATA / f"labels/{dataset}/dev.jsonl"),
        "--judge", "openai/gpt-4o-mini", "--base-url", url, "--limit", "2", "--json",
    ])
    assert res.exit_code == 3, res.output
    assert isinstance(res.exception, SystemExit)  # not a traceback
    assert "Traceback" not in res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("error: the judge failed") and "cannot connect" in lines[-1]
    assert res.stdout.strip() == ""  # nothing measured is printed as if it were a result

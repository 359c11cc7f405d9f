"""``prism evaluate --dry-run`` predicts what the run will count (issue 25, item 6).

The estimate (first calls, later calls from the protocol's call pattern, re-asks at the stated
rate) is compared with the calls and input tokens a real run counts against the quoting loopback
judge on the bundled demo, per dimension, within 25 %. Before the later calls were added, the
estimate counted only each unit's first call (210 of the economical run's 415 calls).
The reference case makes ~4,000 loopback calls (~30 s).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.testing import quoting
from prism_review.testing.llm_server import LLMServer

DIMS = ("depth", "novelty", "flaws", "constructiveness")


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")


def _evaluate(url: str, out: Path, *extra: str) -> str:
    res = CliRunner().invoke(app, ["evaluate", "--judge", f"openai-compatible/gpt-4o-mini@{url}",
                                   "--out", str(out), "--cache-dir", str(out.parent / f"{out.name}-cache"),
                                   "--quiet", "--no-report", *extra])
    assert res.exit_code == 0, res.output
    return res.output


def _table(output: str) -> dict[str, tuple[int, int]]:
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 9 and cells[1].replace(",", "").isdigit():
            rows[cells[0].strip("*")] = (int(cells[1].replace(",", "")), int(cells[2].replace(",", "")))
    return rows


def _counted(server: LLMServer) -> tuple[Counter[str], Counter[str]]:
    """Calls and input tokens (the estimate's measure: 4 characters a token, schema included)
    per dimension of every request the server received."""
    calls: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    for r in server.requests:
        dim = (r.step or "?").split(".", 1)[0]
        calls[dim] += 1
        tokens[dim] += (len(json.dumps(r.body.get("messages", []), ensure_ascii=False)) // 4
                        + len(json.dumps(r.body.get("response_format", {}))) // 4)
    return calls, tokens


# the whole demo each time: the reference protocol's verdict calls follow each review's claims
# and each paper's pool (the demo's first 3 papers ask 22 per review, the demo 39.7), so a few
# papers are not what the estimate's rates describe
@pytest.mark.parametrize("protocol, extra", [("economical", ()), ("pooled", ()), ("reference", ())])
def test_dry_run_predicts_the_counted_calls_within_25_percent(tmp_path, protocol, extra):
    server = LLMServer(schema_seed=7)
    server.set_responder(quoting.responder(server.default_reply))
    server.start()
    try:
        estimate = _table(_evaluate(server.base_url, tmp_path / "dry", "--protocol", protocol, "--dry-run", *extra))
        assert server.requests == []  # a dry run sends nothing
        _evaluate(server.base_url, tmp_path / "run", "--protocol", protocol, *extra)
        calls, tokens = _counted(server)
    finally:
        server.stop()
    for dim in DIMS:
        est_calls, est_tokens = estimate[dim]
        assert est_calls == pytest.approx(calls[dim], rel=0.25), (protocol, dim, est_calls, calls[dim])
        assert est_tokens == pytest.approx(tokens[dim], rel=0.25), (protocol, dim, est_tokens, tokens[dim])
    total_calls, total_tokens = estimate["total"]
    assert total_calls == pytest.approx(sum(calls.values()), rel=0.25)
    assert total_tokens == pytest.approx(sum(tokens.values()), rel=0.25)

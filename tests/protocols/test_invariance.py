"""A review's scores do not depend on what else is in the run (issue 25), tested the way it fails.

The judge is the loopback server in its context-sensitive mode (``LLMServer(context_seed=N)``):
every number of every answer is drawn from a hash of the whole request, as a real model's answer
moves with everything in its prompt. The decisions underneath come from the decision judges
(novelty and flaws read off the texts; the other steps schema-built), so the checks pass and the
rows carry real values.

A base run (the first ``LIMIT`` demo papers, every system) is compared with runs that change what
else is in the run or how it is run: other systems not selected (``--system``) or not in the
data at all (a copy of the demo without one system), a smaller ``--limit``, ``--sample``
with the papers in reverse order, ``--venue``, a resume after ``kill -9``, ``--engine ray`` (when
Ray is installed) and ``--batch``; under the default ``economical`` protocol and under
``--protocol reference``. Every row a variant shares with the base, every dimension, must be
identical (status, metrics, extraction). ``--protocol pooled`` is shown to fail the same check,
so the harness can fail. (``--workers`` runs the offline judge only: an LLM judge is refused.)

Rows compared: every row of the variant, the flaws human rows included (one per pairing, and the
human-only bank's). What PRISM does not make invariant is the flaws ``human`` figure of Table 1,
the mean over the human panel's pairings with each LLM system of the run: a property of the
definition, said under Table 1 (``human-only-bank`` is the invariant human figure), and tested
on the summary below.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import demo_root
from prism_review.data.source_kinds import LayoutSource
from prism_review.pipelines.results import read_results
from prism_review.testing import flaw_decisions, novelty_decisions
from prism_review.testing.llm_server import LLMServer

SEED = 11
LIMIT = 3
DIMS = ("depth", "novelty", "flaws", "constructiveness")
Key = tuple[str, str, str, str | None]


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")
    monkeypatch.setenv("PRISM_BATCH_POLL", "0.02")


def context_server() -> LLMServer:
    """The context-sensitive judge: decisions read off the texts, numbers from the whole request."""
    server = LLMServer(schema_seed=SEED, context_seed=SEED)
    server.set_responder(novelty_decisions.responder(flaw_decisions.responder(server.default_reply)))
    return server.start()


@pytest.fixture(scope="module")
def server():
    s = context_server()
    yield s
    s.stop()


def args(url: str, out: Path, *extra: str) -> list[str]:
    return ["evaluate", "--judge", f"openai-compatible/test-model@{url}", "--out", str(out),
            "--cache-dir", str(out.parent / f"{out.name}-cache"), "--quiet", "--no-report", *extra]


def evaluate(url: str, out: Path, *extra: str) -> None:
    res = CliRunner().invoke(app, args(url, out, *extra))
    assert res.exit_code == 0, res.output


def rows(out: Path, dimension: str) -> dict[Key, Any]:
    """The run's rows of one dimension by (unit key, reviewer, pairing), without usage (which
    call a row owes depends on what ran first)."""
    got = {}
    for r in read_results(out):
        if r.dimension != dimension:
            continue
        got[(r.unit_key, r.reviewer_id, r.system, r.pairing)] = (
            r.status, json.dumps(r.metrics, sort_keys=True), json.dumps(r.extracted, sort_keys=True))
    return got


def differing(base: Path, other: Path, dimension: str) -> tuple[int, int]:
    """(rows of ``other`` that differ from ``base``'s, rows compared); every row of ``other``
    must be in ``base`` (the variants only take things away or reorder)."""
    a, b = rows(base, dimension), rows(other, dimension)
    assert b and set(b) <= set(a), sorted(set(b) - set(a))[:5]
    return sum(a[k] != v for k, v in b.items()), len(b)


def first_papers(n: int) -> list[str]:
    """The demo's first ``n`` paper ids in the source's order (sorted ids)."""
    return [i.paper.paper_id for i in LayoutSource(demo_root()).items(limit=n) if i.paper is not None]


PROTOCOLS = ("economical", "reference")
#: the system a leaderboard adds last: the demo copied without its reviews
ABSENT = "claude_opus"


def without_system(root: Path) -> Path:
    """A copy of the demo without :data:`ABSENT`'s reviews (``--system`` only selects whose rows
    are written; this takes the system out of the data, as a leaderboard before it joined)."""
    copy = root / "demo-without-system"
    if not copy.exists():
        shutil.copytree(demo_root(), copy)
        shutil.rmtree(copy / "ICLR2024" / ABSENT)
    return copy


@pytest.fixture(scope="module")
def runs(server, tmp_path_factory) -> dict[str, dict[str, Path]]:
    """Per protocol: the base run and every variant (each its own folder and reply cache)."""
    root = tmp_path_factory.mktemp("invariance")
    ids = first_papers(LIMIT)
    sample = root / "paper_ids_3_iclr2024.txt"
    sample.write_text("\n".join(reversed(ids)) + "\n")
    absent = without_system(root)
    out: dict[str, dict[str, Path]] = {}
    for protocol in PROTOCOLS:
        p = ("--protocol", protocol)
        d = root / protocol
        variants = {
            "base": ("--limit", str(LIMIT)),
            "fewer systems": ("--limit", str(LIMIT), "--system", "gpt4", "--system", "human"),
            "system absent from the data": ("--limit", str(LIMIT), "--data", str(absent)),
            "smaller limit": ("--limit", str(LIMIT - 1)),
            "reversed sample": ("--sample", str(sample)),
            "venue": ("--limit", str(LIMIT), "--venue", "ICLR2024"),
            "batch": ("--limit", str(LIMIT), "--batch"),
        }
        out[protocol] = {}
        for name, extra in variants.items():
            folder = d / name.replace(" ", "_")
            evaluate(server.base_url, folder, *p, *extra)
            out[protocol][name] = folder
    return out


VARIANTS = ("fewer systems", "system absent from the data", "smaller limit", "reversed sample", "venue", "batch")


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dimension", DIMS)
def test_rows_do_not_depend_on_the_rest_of_the_run(runs, protocol, variant, dimension):
    n_diff, n = differing(runs[protocol]["base"], runs[protocol][variant], dimension)
    assert n_diff == 0, f"{n_diff} of {n} {dimension} rows differ ({protocol}, {variant})"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_rows_compared_carry_scores(runs, protocol):
    """Not a comparison of empty or failed rows: most rows are scored, with values that vary."""
    for dim in DIMS:
        got = [r for r in read_results(runs[protocol]["base"]) if r.dimension == dim]
        ok = [r for r in got if r.status == "ok"]
        assert len(ok) >= len(got) // 2, (dim, [r.status for r in got])
    ctr = {r.metrics["mcs"] for r in read_results(runs[protocol]["base"])
           if r.dimension == "constructiveness" and r.metrics.get("mcs") is not None}
    assert len(ctr) >= 3


def test_pooled_rows_do_depend_on_the_rest_of_the_run(server, tmp_path):
    """The same harness sees the pooled protocol's dependence: constructiveness groups and the
    paper-level novelty verdicts give other numbers when other systems leave the run, the
    paper-wide flaw pieces when a system leaves the data."""
    base, fewer = tmp_path / "base", tmp_path / "fewer"
    evaluate(server.base_url, base, "--protocol", "pooled", "--limit", str(LIMIT))
    evaluate(server.base_url, fewer, "--protocol", "pooled", "--limit", str(LIMIT),
             "--system", "gpt4", "--system", "human")
    for dim in ("constructiveness", "novelty"):
        n_diff, n = differing(base, fewer, dim)
        assert n_diff >= n // 2, f"only {n_diff} of {n} pooled {dim} rows moved"
    assert differing(base, fewer, "depth")[0] == 0  # DoA is per review under every protocol
    # pooled flaws are consolidated over every review of the paper in the data: a system taken
    # out of the data moves the others' rows
    absent = tmp_path / "absent"
    evaluate(server.base_url, absent, "--protocol", "pooled", "--limit", str(LIMIT), "--dimension", "flaws",
             "--data", str(without_system(tmp_path)))
    n_diff, n = differing(base, absent, "flaws")
    assert n_diff >= n // 2, f"only {n_diff} of {n} pooled flaws rows moved"


def test_context_sensitive_server_moves_answers_with_the_whole_request():
    """The mode itself: the same request, the same reply; one more message, other numbers;
    strings, ids and shapes as the base reply has them."""
    from prism_review.testing.context_reply import context_sensitive

    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"id": {"type": "string", "enum": ["a", "b"]},
                                         "score": {"type": "integer", "enum": [0, 1, 2]},
                                         "grade": {"type": "number", "minimum": 0, "maximum": 1},
                                         "label": {"type": "string", "enum": ["x", "y", "z"]},
                                         "ok": {"type": "boolean"}}}}}}
    body = {"messages": [{"role": "user", "content": "review A"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}}
    base = {"items": [{"id": "ab"[i % 2], "score": 0, "grade": 0.5, "label": "x", "ok": True} for i in range(8)]}
    one = context_sensitive(body, json.dumps(base), 3)
    assert one == context_sensitive(body, json.dumps(base), 3)
    moved = {"messages": [*body["messages"], {"role": "user", "content": "review B"}],
             "response_format": body["response_format"]}
    two = context_sensitive(moved, json.dumps(base), 3)
    assert one != two
    for reply in (json.loads(one), json.loads(two)):
        assert [i["id"] for i in reply["items"]] == ["a", "b"] * 4  # one entry per id: all kept
        assert all(i["score"] in (0, 1, 2) and 0 <= i["grade"] <= 1 and i["label"] in "xyz"
                   and isinstance(i["ok"], bool) for i in reply["items"])
    assert context_sensitive({"messages": []}, "not json", 3) == "not json"
    # a free list (its ids do not cover the enum: mentions of some issues) loses entries
    free = {"items": [{"id": "a", "score": 0}] * 40}
    kept = json.loads(context_sensitive(body, json.dumps(free), 3))["items"]
    assert 10 <= len(kept) < 40


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("dimension", DIMS)
def test_a_resume_after_kill_9_gives_the_same_rows(runs, killed_runs, protocol, dimension):
    n_diff, n = differing(runs[protocol]["base"], killed_runs[protocol], dimension)
    assert n_diff == 0, f"{n_diff} of {n} {dimension} rows differ after kill -9 + resume ({protocol})"
    assert len(rows(killed_runs[protocol], dimension)) == len(rows(runs[protocol]["base"], dimension))


@pytest.fixture(scope="module")
def killed_runs(server, tmp_path_factory) -> dict[str, Path]:
    """Per protocol: the base run killed with SIGKILL once some units are written, then resumed
    in the same folder (the judge's cache kept, as a real resume has it)."""
    root = tmp_path_factory.mktemp("killed")
    out = {}
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for protocol in PROTOCOLS:
        folder = root / protocol
        cmd = [sys.executable, "-m", "prism_review.cli",
               *args(server.base_url, folder, "--protocol", protocol, "--limit", str(LIMIT), "--concurrency", "2")]
        server.latency = 0.01  # slow enough to be killed mid-run
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        log = folder / "results.jsonl"
        while proc.poll() is None and _lines(log) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        server.latency = 0.0
        assert killed, "the run ended before it could be killed"
        evaluate(server.base_url, folder, "--protocol", protocol, "--limit", str(LIMIT))
        out[protocol] = folder
    return out


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_ray_engine_gives_the_same_rows(runs, server, tmp_path, protocol):
    pytest.importorskip("ray")
    folder = tmp_path / "ray"
    evaluate(server.base_url, folder, "--protocol", protocol, "--limit", str(LIMIT), "--engine", "ray")
    for dim in DIMS:
        assert differing(runs[protocol]["base"], folder, dim)[0] == 0, dim

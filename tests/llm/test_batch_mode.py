"""``prism evaluate --batch`` and ``--dry-run`` against the loopback server's Batch API.

* a batch run gives a live run's results (same schema-built replies), with 0 chat-completion
  calls, every reply read back through the audit, and the cost at half the live price;
* a run killed after submitting picks the recorded batch up again (same batch id), and no
  request is ever submitted twice;
* a failed batch line is retried live, once;
* ``--dry-run`` calls nothing (chat or batch) and prints the estimate per dimension.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from prism_review.llm.pricing import PriceTable
from prism_review.pipelines.results import read_results
from prism_review.pipelines.runner import EvalOptions, run_evaluation
from prism_review.testing.cli_run import evaluate
from prism_review.testing.llm_server import Fault, LLMServer

SEED = 7
LIMIT = "1"


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")
    monkeypatch.setenv("PRISM_BATCH_POLL", "0.02")


@pytest.fixture
def servers():
    made: list[LLMServer] = []

    def make() -> LLMServer:
        server = LLMServer(schema_seed=SEED).start()
        made.append(server)
        return server

    yield make
    for s in made:
        s.stop()


def _config(tmp_path: Path) -> Path:
    prices = tmp_path / "prices.toml"
    prices.write_text('["test-model"]\ninput = 1.0\noutput = 2.0\n')
    cfg = tmp_path / "judge.toml"
    cfg.write_text(f'[llm]\nprices = "{prices}"\n')
    return cfg


def _evaluate(server: LLMServer, out: Path, cache: Path, cfg: Path, *extra: str) -> Any:
    return evaluate(server.base_url, out, cache, "--limit", LIMIT, "--config", str(cfg), *extra)


def _by_unit(out: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {(r.dimension, r.unit_key, r.reviewer_id, r.pairing):
            {"status": r.status, "metrics": r.metrics, "error": r.error, "extracted": r.extracted}
            for r in read_results(out)}


def _audit(out: Path) -> Counter[tuple[Any, ...]]:
    """The model replies the judge parsed, by step and purpose (request ids name the server;
    cache hits are left out: a batch run re-reads, in each pass, what earlier passes answered)."""
    recs = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    recs = [r for r in recs if not r["cached"]]
    return Counter((r["step"], r["purpose"], r["raw"], json.dumps(r["parsed"], sort_keys=True))
                   for r in recs)


def _stats(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())["totals"]["judge_stats"]


def test_a_batch_run_equals_a_live_run_with_no_chat_call(servers, tmp_path):
    cfg = _config(tmp_path)
    live_server, batch_server = servers(), servers()
    res = _evaluate(live_server, tmp_path / "live", tmp_path / "c1", cfg)
    assert res.exit_code == 0, res.output
    batch_server.batch_delay = 0.05
    res = _evaluate(batch_server, tmp_path / "batch", tmp_path / "c2", cfg, "--batch")
    assert res.exit_code == 0, res.output
    assert batch_server.requests == []  # not one chat-completion call
    assert len(batch_server.batch_lines) == len(live_server.requests)
    assert _by_unit(tmp_path / "batch") == _by_unit(tmp_path / "live")
    assert _audit(tmp_path / "batch") == _audit(tmp_path / "live")
    live, batch = _stats(tmp_path / "live"), _stats(tmp_path / "batch")
    assert batch["calls"] == batch["batch_calls"] == live["calls"] > 0
    assert batch["prompt_tokens"] == live["prompt_tokens"]
    assert batch["cost_usd"] == pytest.approx(live["cost_usd"] / 2)
    record = json.loads((tmp_path / "batch" / "batches.json").read_text())["batches"]
    assert len(record) >= 2 and all(b["ingested"] and b["failed"] == 0 for b in record)
    assert "calls via batch" in res.output
    # the batch replies are in the cache under the live keys: a live re-run calls nothing
    res = _evaluate(batch_server, tmp_path / "again", tmp_path / "c2", cfg)
    assert res.exit_code == 0, res.output
    assert batch_server.requests == [] and _stats(tmp_path / "again")["calls"] == 0


def _submitted_ids(server: LLMServer) -> list[str]:
    """custom_id of every line of every batch input file the server received."""
    store = server.batch_store
    inputs = {b["input_file_id"] for b in store.batches.values()}
    return [json.loads(x)["custom_id"] for f in inputs
            for x in store.files[f].decode().splitlines() if x.strip()]


async def test_a_killed_batch_run_resumes_its_recorded_batch(servers, tmp_path):
    cfg = _config(tmp_path)
    live_server, server = servers(), servers()
    dims = ["depth", "flaws"]

    def opts(srv: LLMServer, out: str, cache: str, **judge: Any) -> EvalOptions:
        return EvalOptions(out=tmp_path / out, limit=int(LIMIT), dimensions=dims,
                           judge=f"openai-compatible/test-model@{srv.base_url}",
                           judge_options={"cache_dir": tmp_path / cache, "config_path": cfg,
                                          **judge})

    await run_evaluation(opts(live_server, "live", "c1"))
    server.hold_batches = True  # submitted batches stay in progress until released
    run = asyncio.create_task(run_evaluation(opts(server, "run", "c2", batch=True,
                                                  batch_poll=0.02)))
    record_path = tmp_path / "run" / "batches.json"
    for _ in range(1000):
        await asyncio.sleep(0.02)
        if record_path.exists() and json.loads(record_path.read_text())["batches"][0]["id"]:
            break
    run.cancel()  # killed while its first batch is in progress
    with pytest.raises(asyncio.CancelledError):
        await run
    first = json.loads(record_path.read_text())["batches"][0]
    assert not first["ingested"] and len(server.batch_store.batches) == 1
    assert not (tmp_path / "run" / "results.jsonl").exists() or not read_results(tmp_path / "run")
    server.hold_batches = False
    polls_before = len(server.batch_calls)
    await run_evaluation(opts(server, "run", "c2", batch=True, batch_poll=0.02))
    polls = server.batch_calls[polls_before:]
    assert polls[0] == ("GET", f"/v1/batches/{first['id']}")  # picked up, not resubmitted
    ids = _submitted_ids(server)
    assert len(ids) == len(set(ids)) == len(live_server.requests)  # nothing submitted twice
    assert server.requests == []
    assert _by_unit(tmp_path / "run") == _by_unit(tmp_path / "live")


def test_a_failed_batch_line_is_retried_live(servers, tmp_path):
    cfg = _config(tmp_path)
    live_server, server = servers(), servers()
    dims = ("--dimension", "constructiveness")
    assert _evaluate(live_server, tmp_path / "live", tmp_path / "c1", cfg, *dims).exit_code == 0
    server.script(Fault.status(500))  # the first line of the first batch fails
    res = _evaluate(server, tmp_path / "batch", tmp_path / "c2", cfg, *dims, "--batch")
    assert res.exit_code == 0, res.output
    assert len(server.requests) == 1  # that line, live, once
    record = json.loads((tmp_path / "batch" / "batches.json").read_text())["batches"]
    assert record[0]["failed"] == 1
    assert _by_unit(tmp_path / "batch") == _by_unit(tmp_path / "live")
    assert _stats(tmp_path / "batch")["batch_calls"] == len(live_server.requests) - 1


def test_dry_run_calls_nothing_and_estimates_per_dimension(servers, tmp_path):
    cfg = _config(tmp_path)
    server = servers()
    res = _evaluate(server, tmp_path / "dry", tmp_path / "c", cfg, "--dry-run")
    assert res.exit_code == 0, res.output
    assert server.requests == [] and server.batch_calls == []
    assert "ESTIMATE" in res.output and "Later calls" in res.output and "Re-asks" in res.output
    table = {line.split("|")[1].strip(): line.split("|")[2:-1]
             for line in res.output.splitlines() if line.startswith("| ")}
    for dim in ("depth", "novelty", "flaws", "constructiveness"):
        calls, tokens = int(table[dim][0].replace(",", "")), int(table[dim][1].replace(",", ""))
        assert calls > 0 and tokens > 0, (dim, table[dim])
    assert not (tmp_path / "dry" / "results.jsonl").exists()
    # at batch prices every cost is half
    res_b = _evaluate(server, tmp_path / "dry2", tmp_path / "c", cfg, "--dry-run", "--batch")
    table_b = {line.split("|")[1].strip(): line.split("|")[2:-1]
               for line in res_b.output.splitlines() if line.startswith("| ")}
    cost = float(table["**total**"][3].strip(" $"))
    assert cost > 0 and float(table_b["**total**"][3].strip(" $")) == pytest.approx(cost / 2,
                                                                                    abs=1e-4)
    assert server.requests == [] and server.batch_calls == []


def test_a_server_without_a_batch_api_stops_the_run_with_its_error(servers, tmp_path):
    server = servers()
    server.batch_store.handle = (  # type: ignore[method-assign]
        lambda method, path, headers, raw: (404, {"error": {"message": "no such route"}})
        if "/files" in path or "/batches" in path else None)
    res = _evaluate(server, tmp_path / "run", tmp_path / "c", _config(tmp_path), "--batch",
                    "--dimension", "constructiveness")
    assert res.exit_code == 3, res.output
    assert "batch upload refused (404)" in res.output and "re-run" in res.output
    assert server.requests == []


def test_batch_needs_the_cache(servers, tmp_path):
    server = servers()
    res = _evaluate(server, tmp_path / "run", tmp_path / "c", _config(tmp_path), "--batch",
                    "--no-cache")
    assert res.exit_code == 2 and "cache" in res.output


def test_batch_prices_are_half_unless_the_table_says_otherwise(tmp_path):
    prices = tmp_path / "p.toml"
    prices.write_text('["m-a"]\ninput = 2.0\noutput = 4.0\n'
                      '["m-b"]\ninput = 2.0\noutput = 4.0\nbatch_input = 1.5\nbatch_output = 3.0\n')
    table = PriceTable.load(prices)
    assert table.cost("m-a", 1_000_000, 1_000_000) == 6.0
    assert table.cost("m-a", 1_000_000, 1_000_000, batch=True) == 3.0
    assert table.cost("m-b", 1_000_000, 1_000_000, batch=True) == 4.5
    assert table.cost("gpt-4o-mini-2024-07-18", 1_000_000, 0, batch=True) == 0.075
    assert table.cost("unknown", 10, 10, batch=True) is None


def test_a_batch_run_reports_each_input_problem_once(servers, tmp_path):
    """A batch run reads the source once per pass; a skipped row is still one problem."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "data"))
    from data_shapes import corpus_row, write_corpus

    data = write_corpus(tmp_path / "papers.parquet", [
        corpus_row("p1", "ICLR_2024", "Accept (oral)"),
        corpus_row("bad", "ICLR_2025", "Reject", reviews_json="{oops")])
    server = servers()
    res = _evaluate(server, tmp_path / "run", tmp_path / "c", _config(tmp_path), "--batch",
                    "--data", str(data), "--dimension", "constructiveness")
    assert res.exit_code == 1, res.output  # 1: the bad row is reported, the rest evaluated
    assert len(json.loads((tmp_path / "run" / "batches.json").read_text())["batches"]) == 1  # two passes
    rows = [json.loads(x) for x in (tmp_path / "run" / "errors.jsonl").read_text().splitlines()]
    assert len([r for r in rows if "reviews_json" in r.get("error", "")]) == 1, rows
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["totals"]["inputs_skipped"] == 1


def test_a_batch_run_counts_each_re_ask_once(servers, tmp_path):
    # before: a deferred unit re-runs its finished steps on every pass, and each pass counted
    # their re-asks again (23 reported where the live run made 3)
    def first_asks_unusable(server: LLMServer) -> LLMServer:
        def reply(body: dict[str, Any]) -> Any:
            last = body["messages"][-1]["content"]
            name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
            if name == "novelty_claims":  # its re-asks too: unscored (deterministic)
                return "nope"
            return "nope" if "could not be used" not in last else server.default_reply(body)
        return server.set_responder(reply)

    cfg = _config(tmp_path)
    live_server, batch_server = first_asks_unusable(servers()), first_asks_unusable(servers())
    dims = ("--dimension", "novelty")
    assert _evaluate(live_server, tmp_path / "live", tmp_path / "c1", cfg, *dims).exit_code == 0
    res = _evaluate(batch_server, tmp_path / "batch", tmp_path / "c2", cfg, *dims, "--batch")
    assert res.exit_code == 0, res.output
    live, batch = _stats(tmp_path / "live"), _stats(tmp_path / "batch")
    repairs = len({json.dumps(r.body, sort_keys=True) for r in live_server.requests
                   if "could not be used" in r.body["messages"][-1]["content"]})  # sent (twice
    # when its reply is unusable too: the same request again, a retry, not another re-ask)
    assert live["reasks"] == repairs > 0
    assert live["unscored"] > 0 and live["transient"] == 0
    assert batch["reasks"] == live["reasks"] and batch["unscored"] == live["unscored"]
    record = json.loads((tmp_path / "batch" / "batches.json").read_text())["batches"]
    assert len(record) >= 3  # the units were deferred over several passes
    assert _by_unit(tmp_path / "batch") == _by_unit(tmp_path / "live")


def test_a_dry_run_on_a_cache_of_unusable_replies_still_calls_nothing(servers, tmp_path):
    # an unusable cached reply is asked again fresh (live); a dry run must queue it instead
    import sqlite3

    cfg = _config(tmp_path)
    server = servers()
    dims = ("--dimension", "constructiveness")
    assert _evaluate(server, tmp_path / "live", tmp_path / "c", cfg, *dims).exit_code == 0
    db = sqlite3.connect(tmp_path / "c" / "llm-cache.sqlite3")
    with db:  # a cache written before unusable replies were kept out of it
        db.execute("UPDATE responses SET text = 'nope'")
    db.close()
    server.requests.clear()
    res = _evaluate(server, tmp_path / "dry", tmp_path / "c", cfg, *dims, "--dry-run")
    assert res.exit_code == 0, res.output
    assert server.requests == [] and server.batch_calls == []


def test_a_batch_run_counts_a_flaws_re_ask_once_as_the_live_run(servers, tmp_path):
    """A batch run re-runs its unfinished units every pass; a re-ask is counted when a model
    answers it, not again on each pass that re-reads it from the cache (issue 25: 52 counted where
    the live run made 11)."""
    cfg = _config(tmp_path)
    live_server, batch_server = servers(), servers()
    args = ("--dimension", "flaws", "--limit", "6")
    assert _evaluate(live_server, tmp_path / "live", tmp_path / "c1", cfg, *args).exit_code == 0
    res = _evaluate(batch_server, tmp_path / "batch", tmp_path / "c2", cfg, "--batch", *args)
    assert res.exit_code == 0, res.output

    def sent(reqs: list[Any]) -> int:  # re-asks carry the reply they follow up
        return sum(any(m.get("role") == "assistant" for m in r.body.get("messages", [])) for r in reqs)

    live, batch = _stats(tmp_path / "live"), _stats(tmp_path / "batch")
    assert live["reasks"] == sent(live_server.requests) > 0
    assert batch["reasks"] == sent(batch_server.batch_lines) == live["reasks"]

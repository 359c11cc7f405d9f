import asyncio

import pytest

from prism_review.retrieval.pool import build_pool
from prism_review.retrieval.s2 import S2Error, SemanticScholarClient, keys_from_env

from .s2_server import S2Server, recorded_script

Q1 = "Efficient transformers long document classification Block-sparse attention kernel"
PAPER = {
    "core_task": "Efficient transformers for long document classification",
    "contributions": [{"name": "Block-sparse attention kernel"}, {"name": "Hierarchical memory tokens"}],
}
TITLE = "Block-Sparse Attention Kernels for Long Document Classification"


def client(server, **kw):
    kw.setdefault("min_interval", 0.0)
    kw.setdefault("retry_delay", 0.001)
    return SemanticScholarClient(base_url=server.base_url, **kw)


async def test_search_sends_params_and_key():
    with S2Server(recorded_script()) as srv:
        c = client(srv, api_keys=["k1"])
        items = await c.search(Q1, 10)
        await c.aclose()
    assert [i["title"] for i in items][:2] == [TITLE, "Longformer: The Long-Document Transformer"]
    req = srv.log[0]
    assert req["params"]["query"] == Q1 and req["params"]["limit"] == "10" and req["params"]["offset"] == "0"
    assert "externalIds" in req["params"]["fields"] and "year" not in req["params"]  # no server-side year filter
    assert req["key"] == "k1"


async def test_retries_429_and_5xx_then_succeeds():
    ok = (200, {"data": [{"paperId": "x", "title": "T"}]})
    with S2Server({"q": [(429, {"message": "slow down"}), (503, {}), ok]}) as srv:
        c = client(srv)
        items = await c.search("q")
        await c.aclose()
    assert items == [{"paperId": "x", "title": "T"}]
    assert len(srv.log) == 3 and c.stats["retries"] == 2


async def test_invalid_json_is_retried():
    with S2Server({"q": [(200, b"not json"), (200, {"data": []})]}) as srv:
        c = client(srv)
        assert await c.search("q") == []
        await c.aclose()
    assert len(srv.log) == 2


async def test_gives_up_after_max_attempts_with_backoff():
    sleeps = []

    async def fake_sleep(s):
        sleeps.append(s)

    with S2Server({"q": [(500, {})]}) as srv:
        c = client(srv, max_attempts=4, retry_delay=1.0, max_delay=3.0, sleep=fake_sleep)
        with pytest.raises(S2Error, match="HTTP 500 after 4 attempts"):
            await c.search("q")
        await c.aclose()
    assert len(srv.log) == 4
    assert sleeps == [1.0, 2.0, 3.0]  # min(delay * 2^attempt, cap)


async def test_auth_failure_is_immediate_but_fails_over_to_next_key():
    with S2Server({"q": [(403, {"message": "Forbidden"})]}) as srv:
        c = client(srv, api_keys=["bad"])
        with pytest.raises(S2Error) as err:
            await c.search("q")
        await c.aclose()
    assert err.value.status == 403 and len(srv.log) == 1

    with S2Server({"q": [(401, {}), (200, {"data": [{"paperId": "y"}]})]}) as srv:
        c = client(srv, api_keys=["bad", "good"])
        assert await c.search("q") == [{"paperId": "y"}]
        await c.aclose()
    assert [r["key"] for r in srv.log] == ["bad", "good"]


async def test_other_client_errors_are_not_retried():
    with S2Server({"q": [(400, {"error": "bad query"})]}) as srv:
        c = client(srv)
        with pytest.raises(S2Error, match="HTTP 400"):
            await c.search("q")
        await c.aclose()
    assert len(srv.log) == 1


async def test_network_error_is_retried_then_reported():
    c = SemanticScholarClient(base_url="http://127.0.0.1:9/graph/v1", min_interval=0, max_attempts=2, retry_delay=0.001)
    with pytest.raises(S2Error, match="network error"):
        await c.search("q")
    await c.aclose()
    assert c.stats["requests"] == 2


async def test_per_key_spacing():
    with S2Server() as srv:
        c = client(srv, api_keys=["k"], min_interval=0.15)
        await asyncio.gather(*(c.search(f"q{i}") for i in range(3)))
        await c.aclose()
    times = sorted(r["t"] for r in srv.log)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert all(g >= 0.13 for g in gaps), gaps


def test_keys_from_env(monkeypatch):
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEYS", raising=False)
    assert keys_from_env() == [None]
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEYS", "a, b,")
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", "z")
    assert keys_from_env() == ["z", "a", "b"]


async def test_pool_from_recorded_responses():
    with S2Server(recorded_script()) as srv:
        c = client(srv)
        rec = await build_pool(PAPER, c, 2024, paper_title=TITLE)
        failing = client(srv, max_attempts=1)
        srv.script["Efficient transformers long document classification Hierarchical memory tokens"] = [(503, {})]
        srv._served.clear()
        rec_err = await build_pool(PAPER, failing, 2024, paper_title=TITLE)
        await c.aclose()
        await failing.aclose()
    assert [q["status"] for q in rec["queries"]] == ["ok", "ok"]
    s = rec["stats"]
    assert s == {"total_candidates": 11, "after_dedup": 10, "after_nontechnical_filter": 9,
                 "after_year_filter": 8, "after_self_exclusion": 7, "final": 7}
    ids = {c["title"] for c in rec["candidate_pool_top30"]}
    assert TITLE not in ids and "Longformer: The Long-Document Transformer" in ids
    lf = next(c for c in rec["candidate_pool_top30"] if c["title"].startswith("Longformer"))
    assert lf["relevance_score"] == 5 / 6  # rank 1 of 6 in C1 beats rank 3 of 5 in C2 (0.4)
    assert rec_err["queries"][1]["status"] == "error" and rec_err["queries"][1]["count"] == 0
    assert "HTTP 503" in rec_err["queries"][1]["error"]


def _closed_url() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/graph/v1"


async def test_a_server_never_reached_stops_the_run_after_two_tries():
    sleeps = []

    async def fake_sleep(s):
        sleeps.append(s)

    c = SemanticScholarClient(base_url=_closed_url(), min_interval=0.0, sleep=fake_sleep)
    with pytest.raises(S2Error, match="cannot reach Semantic Scholar .*--retrieval local") as err:
        await c.search("q")
    assert err.value.fatal and c.stats["requests"] == 2  # was 8 tries backing off to 60 s
    assert sleeps == [1.0]


async def test_connection_errors_after_an_answer_are_retried_not_fatal():
    with S2Server({"q": [(200, {"data": []})]}) as srv:
        c = client(srv, max_attempts=3)
        assert await c.search("q") == []
    # the server is gone now (a restart, a dropped network): retried, and not fatal
    with pytest.raises(S2Error) as err:
        await c.search("q")
    assert not err.value.fatal and c.stats["requests"] == 1 + 3

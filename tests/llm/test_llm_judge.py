"""LLMJudge behaviour: specs, keys, cache, audit, check re-ask, budgets, reasoning models, stats."""

from __future__ import annotations

import asyncio
import json

import pytest

from prism_review.judge.base import OfflineJudge
from prism_review.llm import ConfigError, LLMJudge, make_judge
from prism_review.llm.provider import parse_spec, resolve_endpoint

from ._steps import LabelIn, LabelOut, LabelStep

GOOD = {"label": "neutral", "score": 2, "reasons": []}
SECRET = "sk-test-SECRET-0123456789abcdef"


def test_offline_spec_gives_offline_judge():
    assert isinstance(make_judge("offline"), OfflineJudge)


@pytest.mark.parametrize(
    ("spec", "provider", "model", "url"),
    [
        ("openai/gpt-4o-mini", "openai", "gpt-4o-mini", None),
        ("gemini/gemini-2.5-flash", "gemini", "gemini-2.5-flash", None),
        ("openai-compatible/meta-llama/Llama-3.1-8B@http://localhost:8000/v1", "openai-compatible",
         "meta-llama/Llama-3.1-8B", "http://localhost:8000/v1"),
        ("openai/org/model@v2", "openai", "org/model@v2", None),
    ],
)
def test_parse_spec(spec, provider, model, url):
    got = parse_spec(spec)
    assert (got.provider, got.model, got.base_url) == (provider, model, url)


@pytest.mark.parametrize("spec", ["gpt-4o", "anthropic/claude", "openai/", ""])
def test_bad_spec_is_a_clear_error(spec):
    with pytest.raises(ConfigError, match="offline"):
        make_judge(spec, no_cache=True)


def test_unknown_option_rejected():
    with pytest.raises(ConfigError, match="concurency"):
        make_judge("offline", concurency=3)


def test_missing_keys_name_the_env_var(monkeypatch):
    for var in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY"):
        make_judge("openai/gpt-4o-mini", no_cache=True)
    with pytest.raises(ConfigError, match="set GEMINI_API_KEY or GOOGLE_API_KEY"):
        make_judge("gemini/gemini-2.5-flash", no_cache=True)
    # a local server accepts a dummy key
    judge = make_judge("openai/llama3", base_url="http://127.0.0.1:9/v1", no_cache=True)
    assert isinstance(judge, LLMJudge)


def test_endpoint_resolution_from_env():
    env = {"GOOGLE_API_KEY": "g", "OPENAI_BASE_URL": "http://vllm:8000/v1"}
    url, key = resolve_endpoint(parse_spec("gemini/gemini-2.5-flash"), api_key=None,
                                base_url=None, env=env)
    assert url.startswith("https://generativelanguage.googleapis.com/v1beta/openai") and key == "g"
    url, key = resolve_endpoint(parse_spec("openai/qwen"), api_key=None, base_url=None, env=env)
    assert url == "http://vllm:8000/v1" and key == "not-needed"
    url, _ = resolve_endpoint(parse_spec("openai/qwen"), api_key="k", base_url="http://x/v1",
                              env=env)
    assert url == "http://x/v1"  # --base-url beats OPENAI_BASE_URL


async def test_second_identical_run_makes_zero_calls(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(lambda body: GOOD)
    items = [LabelIn(text=f"item {i}") for i in range(12)]
    first = loopback_judge(audit_path=tmp_path / "out1" / "audit.jsonl")
    r1 = await asyncio.gather(*(first.run(LabelStep(), x) for x in items))
    assert first.stats.usage.calls == 12 and first.stats.usage.cache_hits == 0
    n_requests = len(llm_server.requests)
    # a new judge (new process in real life), a new output folder, the same shared cache
    second = loopback_judge(audit_path=tmp_path / "out2" / "audit.jsonl")
    r2 = await asyncio.gather(*(second.run(LabelStep(), x) for x in items))
    assert len(llm_server.requests) == n_requests  # zero model calls
    assert second.stats.summary().startswith("0 model calls, 12 cache hits (100%), 0 tokens")
    assert second.stats.usage.calls == 0 and second.stats.usage.cache_hits == 12
    assert [r.output for r in r2] == [r.output for r in r1]
    assert all(r.usage.cache_hits == 1 and r.usage.calls == 0 for r in r2)
    assert [r.request_ids for r in r2] == [r.request_ids for r in r1]
    audit2 = [json.loads(x) for x in (tmp_path / "out2" / "audit.jsonl").read_text().splitlines()]
    assert len(audit2) == 12 and all(a["cached"] for a in audit2)


async def test_cache_key_ignores_key_timeout_concurrency(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: GOOD)
    await loopback_judge(api_key="k1", timeout=5, concurrency=2).run(LabelStep(), LabelIn(text="a"))
    other = loopback_judge(api_key="k2", timeout=9, concurrency=7, rpm=600)
    await other.run(LabelStep(), LabelIn(text="a"))
    assert other.stats.usage.cache_hits == 1 and len(llm_server.requests) == 1


@pytest.mark.parametrize("change", [{"temperature": 0.0, "max_tokens": 77}, {"seed": 3},
                                    {"steps": {"test.label": {"model": "other-model"}}}])
async def test_cache_key_covers_output_affecting_settings(llm_server, loopback_judge, change):
    llm_server.set_responder(lambda body: GOOD)
    await loopback_judge().run(LabelStep(), LabelIn(text="a"))
    again = loopback_judge(**change)
    await again.run(LabelStep(), LabelIn(text="a"))
    assert again.stats.usage.cache_hits == 0 and len(llm_server.requests) == 2


async def test_sampled_calls_are_cached_too_and_a_new_seed_or_epoch_draws_again(
        llm_server, loopback_judge):
    # the same command with the same settings is the same draw, whatever the temperature
    # (flaws.consolidate runs at 0.1: before, every re-run called the model again)
    llm_server.set_responder(lambda body: GOOD)
    for _ in range(2):
        await loopback_judge(temperature=0.7).run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 1
    for _ in range(2):
        await loopback_judge(temperature=0.7, epoch=1).run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 2  # an epoch is another sample
    await loopback_judge(temperature=0.7, epoch=2).run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 3
    for _ in range(2):
        await loopback_judge(temperature=0.7, seed=11).run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 4  # a new seed draws again, once
    assert llm_server.requests[-1].body["seed"] == 11
    assert llm_server.requests[-1].body["temperature"] == 0.7
    await loopback_judge(temperature=0.7, no_cache=True).run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 5


async def test_two_servers_with_the_same_model_name_never_share_replies(
        llm_server, loopback_judge, llm_cache_dir):
    from prism_review.llm import make_judge
    from prism_review.testing.llm_server import LLMServer

    llm_server.set_responder(lambda body: GOOD)
    await loopback_judge().run(LabelStep(), LabelIn(text="a"))
    with LLMServer(lambda body: {**GOOD, "score": 1}) as other:
        judge = make_judge(f"openai-compatible/test-model@{other.base_url}",
                           cache_dir=llm_cache_dir, api_key="k")
        res = await judge.run(LabelStep(), LabelIn(text="a"))
        await judge.aclose()
        assert res.output.score == 1 and len(other.requests) == 1 and judge.stats.usage.cache_hits == 0


async def test_a_broken_cache_is_a_miss_never_a_failed_step(llm_server, loopback_judge,
                                                             llm_cache_dir, caplog):
    import sqlite3

    from prism_review.llm.cache import CACHE_FILE

    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge()
    with sqlite3.connect(llm_cache_dir / CACHE_FILE) as db:  # a damaged cache file
        db.execute("DROP TABLE responses")
    with caplog.at_level("WARNING", logger="prism_review.llm"):
        res = await judge.run(LabelStep(), LabelIn(text="a"))
    assert res.ok and res.output == LabelOut(**GOOD) and judge.stats.usage.calls == 1
    assert "cache read failed" in caplog.text and "cache write failed" in caplog.text


async def test_no_cache_always_calls(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: GOOD)
    for _ in range(2):
        await loopback_judge(no_cache=True).run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 2


async def test_check_problem_triggers_one_reask_stating_it(llm_server, loopback_judge):
    llm_server.script({"label": "positive", "score": 9}, {"label": "positive", "score": 4})
    judge = loopback_judge()
    res = await judge.run(LabelStep(), LabelIn(text="x"))
    assert res.ok and res.output.score == 4
    reask = llm_server.requests[1].messages
    assert "score 9 is above the maximum 5" in reask[-1]["content"]
    assert reask[:2] == llm_server.requests[0].messages


async def test_check_reask_that_does_not_help_leaves_a_scoring_step_unscored(llm_server,
                                                                            loopback_judge):
    # before: the first answer (score 9, failing its check) was kept as a good result
    llm_server.script({"label": "positive", "score": 9}, "garbage", "garbage")
    res = await loopback_judge().run(LabelStep(), LabelIn(text="x"))
    assert res.status == "unscored" and res.output is None and len(llm_server.requests) == 3
    assert "check failed after one re-ask" in res.error and "score 9" in res.error
    llm_server.script({"label": "positive", "score": 9}, {"label": "positive", "score": 8})
    res = await loopback_judge(no_cache=True).run(LabelStep(), LabelIn(text="y"))
    assert res.status == "unscored" and "score 8 is above the maximum 5" in res.error


async def test_generation_step_keeps_a_soft_checked_answer_and_says_so(llm_server,
                                                                      loopback_judge):
    from ._steps import DraftStep

    llm_server.script({"label": "positive", "score": 9}, {"label": "positive", "score": 8})
    res = await loopback_judge().run(DraftStep(), LabelIn(text="x"))
    assert res.ok and res.output.score == 9
    assert res.warning and "check still fails" in res.warning and "score 9" in res.warning


async def test_token_budget_is_step_budget_capped(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge(max_tokens=500, no_cache=True)
    await judge.run(LabelStep(), LabelIn(text="a", budget=120))
    await judge.run(LabelStep(), LabelIn(text="a", budget=9000))
    await judge.run(LabelStep(), LabelIn(text="a"))
    assert [r.body["max_tokens"] for r in llm_server.requests] == [120, 500, 500]


async def test_reasoning_models_get_max_completion_tokens_and_no_temperature(llm_server,
                                                                             loopback_judge):
    llm_server.set_responder(lambda body: GOOD)
    for model in ("o3-mini", "gpt-5-mini", "o4-mini", "o1"):
        await loopback_judge(model=model, max_tokens=300).run(LabelStep(), LabelIn(text="a"))
    for req in llm_server.requests:
        assert "temperature" not in req.body and "max_tokens" not in req.body
        assert req.body["max_completion_tokens"] == 300
    await loopback_judge(model="gpt-4o").run(LabelStep(), LabelIn(text="a"))
    assert llm_server.requests[-1].body["temperature"] == 0.0


async def test_server_asking_for_max_completion_tokens_is_obeyed(llm_server, loopback_judge):
    from prism_review.testing.llm_server import Fault

    def responder(body):
        if "max_tokens" in body:
            return Fault.status(400, "Unsupported parameter: 'max_tokens'; use "
                                     "'max_completion_tokens' instead.")
        return GOOD

    llm_server.set_responder(responder)
    judge = loopback_judge(model="new-model", no_cache=True)
    assert (await judge.run(LabelStep(), LabelIn(text="a"))).ok
    assert (await judge.run(LabelStep(), LabelIn(text="b"))).ok
    assert len(llm_server.requests) == 3  # the switch is remembered


async def test_per_step_model_override(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge(steps={"test": {"model": "small-model", "temperature": 0.0}})
    await judge.run(LabelStep(), LabelIn(text="a"))
    assert llm_server.requests[0].body["model"] == "small-model"


async def test_audit_log_and_no_key_anywhere(llm_server, loopback_judge, tmp_path, caplog,
                                             llm_cache_dir):
    from prism_review.testing.llm_server import Fault

    caplog.set_level("DEBUG")
    llm_server.script(Fault.status(500), "not json", {"label": "positive", "score": 1})
    audit = tmp_path / "out" / "audit.jsonl"
    judge = loopback_judge(api_key=SECRET, audit_path=audit)
    res = await judge.run(LabelStep(), LabelIn(text="hello"))
    assert res.ok
    lines = [json.loads(x) for x in audit.read_text().splitlines()]
    assert [x["purpose"] for x in lines] == ["answer", "answer"]  # the same request again
    assert lines[0]["raw"] == "not json" and lines[0]["parsed"] is None and lines[0]["error"]
    assert lines[1]["parsed"] == {"label": "positive", "score": 1, "reasons": []}
    assert [x["request_id"] for x in lines] == res.request_ids
    assert lines[1]["model"] == "test-model" and lines[1]["params"]["temperature"] == 0.0
    assert lines[1]["step"] == "test.label" and lines[1]["usage"]["prompt_tokens"] > 0
    # the key is in no log, cache, audit line, recording, manifest or result
    rec = tmp_path / "recording.jsonl"
    llm_server.save_recording(rec)
    judge.cache.close()
    blobs = [audit.read_bytes(), rec.read_bytes(), caplog.text.encode(),
             json.dumps(judge.describe()).encode(), res.model_dump_json().encode()]
    blobs += [p.read_bytes() for p in llm_cache_dir.iterdir() if p.is_file()]
    assert len(blobs) >= 6
    for blob in blobs:
        assert SECRET.encode() not in blob
    assert all(r.headers["authorization"] == "<redacted>" for r in llm_server.requests)


async def test_stats_usage_cost_and_describe(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge(model="gpt-4o-mini")
    res = await judge.run(LabelStep(), LabelIn(text="a" * 400))
    req = llm_server.requests[0]
    assert res.usage.prompt_tokens > 100 and res.usage.completion_tokens > 0
    expected = (res.usage.prompt_tokens * 0.15 + res.usage.completion_tokens * 0.60) / 1e6
    assert res.usage.cost_usd == pytest.approx(expected)
    assert judge.stats.usage.cost_usd == pytest.approx(expected)
    assert judge.stats.usage.calls == 1 and judge.stats.unpriced_calls == 0
    info = judge.describe()
    assert info["judge"].startswith("openai-compatible/gpt-4o-mini@http://127.0.0.1")
    assert info["settings"]["max_tokens"] == 8000 and info["versions"]["openai"]
    run = judge.runtime()
    assert run["totals"]["calls"] == 1 and run["cache"]["enabled"]
    assert run["transport"]["concurrency"] == 8
    assert req.body["model"] == "gpt-4o-mini"


def test_describe_is_stable_and_free_of_transport_details(tmp_path):
    """The runner hashes describe(): limits, paths and totals must not change it."""
    a = make_judge("openai-compatible/m@http://127.0.0.1:9/v1", cache_dir=tmp_path / "a",
                   concurrency=2, rpm=10, timeout=5, api_key="k1")
    b = make_judge("openai-compatible/m@http://127.0.0.1:9/v1", cache_dir=tmp_path / "b",
                   concurrency=9, timeout=50, max_errors=3, api_key="k2")
    assert a.describe() == b.describe()
    c = make_judge("openai-compatible/m@http://127.0.0.1:9/v1", no_cache=True,
                   steps={"depth": {"max_tokens": 10}})
    assert c.describe() != a.describe()
    assert c.describe()["settings"]["steps"]["depth"]["max_tokens"] == 10
    assert make_judge("openai-compatible/m@http://127.0.0.1:9/v1", no_cache=True,
                      temperature=0.5).describe() != a.describe()


async def test_price_table_override(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(lambda body: GOOD)
    prices = tmp_path / "prices.toml"
    prices.write_text('["test-model"]\ninput = 1000000\noutput = 0\n')
    judge = loopback_judge(prices=prices)
    res = await judge.run(LabelStep(), LabelIn(text="abcd"))
    assert res.usage.cost_usd == pytest.approx(res.usage.prompt_tokens * 1.0)
    judge2 = loopback_judge(prices={"test-model": {"input": 0, "output": 2_000_000}},
                            no_cache=True)
    res2 = await judge2.run(LabelStep(), LabelIn(text="abcd"))
    assert res2.usage.cost_usd == pytest.approx(res2.usage.completion_tokens * 2.0)


async def test_concurrency_limit_is_respected(llm_server, loopback_judge):
    import threading

    live, peak, cond = [0], [0], threading.Condition()

    def responder(body):
        import time

        with cond:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
            cond.notify_all()
            # hold the first replies until three are in flight, so a slow host that sends the
            # third request late cannot make the limit look lower than it is
            cond.wait_for(lambda: peak[0] >= 3, timeout=5)
        time.sleep(0.05)
        with cond:
            live[0] -= 1
        return GOOD

    llm_server.set_responder(responder)
    judge = loopback_judge(concurrency=3, no_cache=True)
    await asyncio.gather(*(judge.run(LabelStep(), LabelIn(text=str(i))) for i in range(12)))
    assert peak[0] == 3


async def test_identical_requests_in_flight_share_one_call(llm_server, loopback_judge):
    from prism_review.testing.llm_server import Fault

    llm_server.set_responder(lambda body: Fault.slow(0.2, GOOD))
    judge = loopback_judge()
    res = await asyncio.gather(*(judge.run(LabelStep(), LabelIn(text="same")) for _ in range(5)))
    assert all(r.ok for r in res) and len(llm_server.requests) == 1
    assert judge.stats.usage.calls == 1 and judge.stats.usage.cache_hits == 4
    assert sum(r.usage.calls for r in res) == 1


async def test_cache_key_covers_the_output_schema(llm_server, loopback_judge):
    from ._steps import LabelOut

    class LabelOutV2(LabelOut):
        confidence: float = 0.5

    class LabelStepV2(LabelStep):
        Output = LabelOutV2

    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge()
    await judge.run(LabelStep(), LabelIn(text="a"))
    await judge.run(LabelStepV2(), LabelIn(text="a"))
    await judge.run(LabelStep(), LabelIn(text="a"))
    assert len(llm_server.requests) == 2 and judge.stats.usage.cache_hits == 1


async def test_rpm_limit_applies_to_judge_calls(llm_server, loopback_judge):
    import time

    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge(rpm=60, no_cache=True, concurrency=16)  # burst 60, then 1 per second
    t0 = time.perf_counter()
    await asyncio.gather(*(judge.run(LabelStep(), LabelIn(text=str(i))) for i in range(61)))
    assert time.perf_counter() - t0 >= 0.95
    assert len(llm_server.requests) == 61
    (limiter,) = judge.calls._limiters.values()
    # only the 61st call waited: 1 s minus what refilled while the first 60 were sent
    assert 0 < limiter.waited <= 1.0


async def test_step_override_can_route_to_another_server(llm_server, loopback_judge):
    from prism_review.testing.llm_server import LLMServer

    llm_server.set_responder(lambda body: GOOD)
    with LLMServer(lambda body: {"label": "negative", "score": 0}) as other:
        judge = loopback_judge(steps={"test.other": {
            "model": f"openai-compatible/big-model@{other.base_url}"}})
        from ._steps import OtherStep

        a = await judge.run(LabelStep(), LabelIn(text="a"))
        b = await judge.run(OtherStep(), LabelIn(text="a"))
        assert a.output.label == "neutral" and b.output.label == "negative"
        assert [r.body["model"] for r in other.requests] == ["big-model"]
        assert [r.body["model"] for r in llm_server.requests] == ["test-model"]
        await judge.aclose()


def test_step_override_to_provider_without_key_fails_at_construction(monkeypatch, tmp_path):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="GEMINI_API_KEY"):
        make_judge("openai-compatible/m@http://127.0.0.1:9/v1", no_cache=True,
                   steps={"novelty": {"model": "gemini/gemini-2.5-flash"}})


async def test_misspelt_step_settings_are_reported(llm_server, loopback_judge, tmp_path, monkeypatch):
    llm_server.set_responder(lambda body: GOOD)
    config = tmp_path / "prism.toml"
    config.write_text('[llm.steps."test.lable"]\nmax_tokens = 50\n[llm.steps.test]\ntemperature = 0.0\n')
    monkeypatch.setenv("PRISM_STEP__TEST_LABEL__MAX_TOKENS", "60")
    judge = loopback_judge(config_path=config)
    assert (await judge.run(LabelStep(), LabelIn(text="a"))).ok
    # the typo applies to no step that ran; the prefix and the environment entry did apply
    assert judge.unused_step_settings() == [f"config file {config}: test.lable"]  # names the file

"""Every injected fault, driven through the real openai SDK against the loopback server."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time

import pytest

from prism_review.llm import FatalProviderError, TooManyErrors, TransportError
from prism_review.testing.llm_server import Fault

from ._steps import LabelIn, LabelStep

GOOD = {"label": "positive", "score": 3, "reasons": ["clear"]}


async def _run(judge, text="fine"):
    return await judge.run(LabelStep(), LabelIn(text=text))


@pytest.mark.parametrize("code", [429, 500, 502, 503, 408])
async def test_retryable_status_then_success(llm_server, loopback_judge, code):
    llm_server.script(Fault.status(code), Fault.status(code), GOOD)
    judge = loopback_judge()
    res = await _run(judge)
    assert res.ok and res.output.score == 3
    assert len(llm_server.requests) == 3
    assert judge.stats.retries == 2 and judge.stats.errors == 0 and judge.stats.usage.calls == 1


async def test_429_retry_after_is_honoured(llm_server, loopback_judge):
    llm_server.script(Fault.status(429, retry_after=0.4), GOOD)
    judge = loopback_judge(retry_base=0.001)
    t0 = time.perf_counter()
    res = await _run(judge)
    assert res.ok
    gap = llm_server.requests[1].time - llm_server.requests[0].time
    assert gap >= 0.38, gap  # without retry-after the 1 ms back-off would retry at once
    assert time.perf_counter() - t0 < 3


async def test_backoff_grows_exponentially(llm_server, loopback_judge):
    llm_server.script(Fault.status(500), Fault.status(500), Fault.status(500), GOOD)
    judge = loopback_judge(retry_base=0.05)
    assert (await _run(judge)).ok
    t = [r.time for r in llm_server.requests]
    gaps = [b - a for a, b in zip(t, t[1:], strict=False)]
    # jitter windows [0.025, 0.05], [0.05, 0.1], [0.1, 0.2] (upper bounds loose for busy hosts)
    assert 0.02 <= gaps[0] <= 0.6 and 0.045 <= gaps[1] <= 0.7 and 0.095 <= gaps[2] <= 0.9


@pytest.mark.parametrize("code", [503, 429])
async def test_retries_exhausted_raises_transport_error_not_unscored(llm_server, loopback_judge,
                                                                      code):
    # the reference's pinned case: max_retries 2 and a persistent error -> 3 attempts, then fail;
    # no reply was received, so the step is not finished (before: an unscored result, which a
    # resumed run then skipped for good)
    llm_server.set_responder(lambda body: Fault.status(code))
    judge = loopback_judge(max_retries=2)
    with pytest.raises(TransportError, match=str(code)):
        await _run(judge)
    assert len(llm_server.requests) == 3
    assert judge.stats.errors == 1 and judge.stats.unscored == 0


async def test_no_server_raises_transport_error(loopback_judge, llm_server):
    judge = loopback_judge(max_retries=1)
    llm_server.stop()
    with pytest.raises(TransportError, match="cannot connect"):
        await _run(judge)


async def test_slow_reply_within_timeout_succeeds(llm_server, loopback_judge):
    llm_server.script(Fault.slow(0.3, GOOD))
    judge = loopback_judge(timeout=2.0)
    res = await _run(judge)
    assert res.ok and res.usage.seconds >= 0.29


async def test_timeout_is_retried(llm_server, loopback_judge):
    llm_server.script(Fault.hang(4.0), GOOD)
    judge = loopback_judge(timeout=0.3)
    t0 = time.perf_counter()
    res = await _run(judge)
    assert res.ok
    assert 0.3 <= time.perf_counter() - t0 < 3.0  # gave up on the hung reply, did not wait it out
    assert judge.stats.retries == 1


async def test_connection_drop_is_retried(llm_server, loopback_judge):
    llm_server.script(Fault.disconnect(), GOOD)
    judge = loopback_judge()
    assert (await _run(judge)).ok
    assert judge.stats.retries == 1


async def test_non_json_http_body_is_retried(llm_server, loopback_judge):
    llm_server.script(Fault.bad_body(), GOOD)
    judge = loopback_judge()
    assert (await _run(judge)).ok
    assert judge.stats.retries == 1


@pytest.mark.parametrize(
    "fault", [Fault.malformed(), Fault.empty(), Fault.malformed("I think it is positive."),
              Fault.malformed(json.dumps(GOOD)[:30]), Fault.malformed('{"label": 3}'),
              Fault.early_length(GOOD)],
    ids=["malformed", "empty", "prose", "cut-but-stop", "off-schema", "early-length"],
)
async def test_a_malformed_reply_is_a_transient_fault_asked_again_as_the_same_request(
        llm_server, loopback_judge, fault):
    # before: a malformed reply was cached and answered by a repair re-ask (another request,
    # another context), so a fault changed the result
    llm_server.script(fault, GOOD)
    judge = loopback_judge()
    res = await _run(judge, "an item")
    assert res.ok and res.output.label == "positive"
    first, second = llm_server.requests
    assert second.body == first.body  # the same request, no corrective re-ask
    assert res.usage.calls == 2 and judge.stats.reasks == 0 and judge.stats.retries == 1
    assert len(res.request_ids) == 2 and len(set(res.request_ids)) == 1


async def test_a_malformed_reply_is_never_cached(llm_server, loopback_judge):
    llm_server.script(Fault.malformed("nope"), GOOD)
    judge = loopback_judge(max_retries=0)  # no retry left: the repair re-ask answers
    assert (await _run(judge)).ok and judge.stats.reasks == 1
    assert judge.cache.count() == 1  # the repair's reply; the malformed one was dropped
    llm_server.set_responder(lambda body: GOOD)
    again = loopback_judge()
    res = await _run(again)
    assert res.ok and again.stats.usage.calls == 1 and again.stats.usage.cache_hits == 0


async def test_a_malformed_reply_the_model_repeats_is_its_answer(llm_server, loopback_judge):
    # repeated verbatim to the same request: deterministic, so the corrective re-ask follows
    llm_server.script(Fault.malformed("nope"), Fault.malformed("nope"), GOOD)
    judge = loopback_judge()
    res = await _run(judge)
    assert res.ok and judge.stats.retries == 1 and judge.stats.reasks == 1
    first, second, third = llm_server.requests
    assert second.body == first.body
    assert third.messages[: len(first.messages)] == first.messages  # full original instructions
    assert third.messages[-2] == {"role": "assistant", "content": "nope"}
    assert "could not be used" in third.messages[-1]["content"]


async def test_invalid_twice_is_unscored_with_raw_kept(llm_server, loopback_judge):
    bad = json.dumps({"label": "great", "score": 1})
    llm_server.script(Fault.malformed("nope"), Fault.malformed("nope"), bad, bad)
    judge = loopback_judge()
    res = await _run(judge)
    assert res.status == "unscored" and res.output is None
    assert res.raw == '{"label": "great", "score": 1}'
    assert "label" in res.error and "re-ask" in res.error
    assert len(llm_server.requests) == 4  # each reply repeated once, exactly one re-ask
    assert judge.stats.unscored == 1 and judge.stats.transient == 0


async def test_unusable_replies_after_every_retry_are_transient_not_unscored(llm_server,
                                                                           loopback_judge):
    # every reply differs and none is usable: a fault, not an answer; the unit is left for the
    # next run (raised, like a call with no reply), never unscored
    from prism_review.llm import TransientFailure

    llm_server.set_responder(lambda body: f"garbage {random.random()}")
    judge = loopback_judge(max_retries=2)
    with pytest.raises(TransientFailure, match="unusable replies after every retry"):
        await _run(judge)
    assert len(llm_server.requests) == 6  # 3 answers, then the repair re-ask 3 times
    assert judge.stats.transient == 1 and judge.stats.unscored == 0
    assert judge.cache.count() == 0


async def test_cut_reply_is_never_accepted_as_a_shorter_answer(llm_server, loopback_judge):
    # before: the lenient parser closed the string and list and returned 3 reasons, cached
    cut = '{"label": "negative", "score": 2, "reasons": ["a", "b", "unfinished'
    full = {"label": "negative", "score": 2, "reasons": ["a", "b", "c", "d"]}
    llm_server.script(cut, full)
    judge = loopback_judge()
    res = await _run(judge)
    assert res.ok and res.output.reasons == ["a", "b", "c", "d"]
    first, second = llm_server.requests
    assert second.body == first.body  # cut without finish_reason="length": asked again
    assert judge.stats.truncated == 0 and judge.stats.reasks == 0
    # cut every time: a repair re-ask stating the cut, then unscored, never the short answer
    llm_server.script(cut, cut, cut, cut)
    res = await _run(judge, "other")
    assert res.status == "unscored" and res.output is None and "cut off" in res.error
    assert "cut off" in llm_server.requests[4].messages[-1]["content"]


async def test_reply_cut_at_the_budget_is_re_asked_with_more_room(llm_server, loopback_judge):
    full = {"label": "neutral", "score": 1, "reasons": ["x", "y"]}
    llm_server.script(Fault.truncated(full, keep=0.9), full)
    judge = loopback_judge()
    res = await judge.run(LabelStep(), LabelIn(text="fine", budget=300))  # below the 8,000 cap
    assert res.ok and res.output.reasons == ["x", "y"] and judge.stats.truncated == 1
    first, second = llm_server.requests
    assert second.messages == first.messages  # the same ask, not a repair conversation
    assert (first.body["max_tokens"], second.body["max_tokens"]) == (300, 600)
    assert "1 truncated replies" in judge.stats.summary()
    # the re-run is served from the cache and ends the same (0 calls, the cut reply not reused
    # as an answer)
    again = loopback_judge()
    res2 = await again.run(LabelStep(), LabelIn(text="fine", budget=300))
    assert res2.ok and res2.output == res.output and again.stats.usage.calls == 0


async def test_400_is_not_retried_and_names_provider(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: Fault.status(400, "invalid request"))
    judge = loopback_judge()
    res = await _run(judge)
    assert res.status == "unscored"
    assert "OpenAI-compatible server error 400" in res.error
    # one request per response format tried (json_schema, json_object, text), no retries
    assert len(llm_server.requests) == 3
    assert judge.stats.retries == 0 and judge.stats.errors == 1


@pytest.mark.parametrize(("code", "message"), [
    (400, "Rate limit exceeded"), (403, "Resource Exhausted"), (400, "Too Many Requests")])
async def test_rate_limits_under_other_status_codes_are_retried(llm_server, loopback_judge,
                                                                code, message):
    llm_server.script(Fault.status(code, message), GOOD)
    judge = loopback_judge()
    assert (await _run(judge)).ok and judge.stats.retries == 1


async def test_other_errors_are_not_mistaken_for_rate_limits(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: Fault.status(422, "Something went wrong"))
    judge = loopback_judge()
    res = await _run(judge)
    assert res.status == "unscored" and judge.stats.retries == 0


async def test_context_length_400_does_not_try_other_formats(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: Fault.status(
        400, "This model's maximum context length is 8192 tokens"))
    judge = loopback_judge()
    res = await _run(judge)
    assert res.status == "unscored" and "maximum context length" in res.error
    assert len(llm_server.requests) == 1


async def test_gemini_style_bad_key_400_is_fatal(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: Fault.status(
        400, "API key not valid. Please pass a valid API key. [reason: API_KEY_INVALID]"))
    with pytest.raises(FatalProviderError, match="rejected the API key"):
        await _run(loopback_judge())
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize(("code", "needle"), [(401, "set OPENAI_API_KEY"), (403, "403"),
                                              (404, "not found")])
async def test_auth_errors_are_fatal_with_clear_fix(llm_server, loopback_judge, code, needle):
    llm_server.set_responder(lambda body: Fault.status(code))
    judge = loopback_judge(api_key="sk-secret-should-not-leak")
    with pytest.raises(FatalProviderError) as info:
        await _run(judge)
    assert needle in str(info.value)
    assert "sk-secret" not in str(info.value)
    assert len(llm_server.requests) == 1


async def test_json_schema_rejected_falls_back_to_json_mode(llm_server, loopback_judge):
    llm_server.reject_json_schema = True
    llm_server.set_responder(lambda body: GOOD)
    judge = loopback_judge()
    res = await _run(judge)
    assert res.ok
    kinds = [r.body.get("response_format", {}).get("type") for r in llm_server.requests]
    assert kinds == ["json_schema", "json_object"]
    hint = llm_server.requests[1].messages[1]
    assert hint["role"] == "system" and '"label"' in hint["content"]  # schema stated in prompt
    res2 = await _run(judge, "other")  # the fallback is remembered
    assert res2.ok
    assert llm_server.requests[2].body["response_format"]["type"] == "json_object"


async def test_max_errors_cutoff_stops_cleanly(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: Fault.status(500))
    judge = loopback_judge(max_retries=0, max_errors=3)
    failures = 0
    with pytest.raises(TooManyErrors) as info:
        for i in range(10):
            try:
                await _run(judge, f"item {i}")
            except TransportError:
                failures += 1
    assert "max-errors limit (3)" in str(info.value)
    assert failures == 2 and judge.stats.unscored == 0
    assert judge.stats.errors == 3
    with pytest.raises(TooManyErrors):  # every later call refuses immediately
        await _run(judge, "later")
    assert len(llm_server.requests) == 3


def _answer(body):
    text = body["messages"][-1]["content"]
    if not text.startswith("item "):  # a re-ask: answer the original item
        text = next(m["content"] for m in body["messages"] if m["role"] == "user")
    n = int(text.split()[1])
    return {"label": ["positive", "negative", "neutral"][n % 3], "score": n % 5,
            "reasons": [f"r{n}", "shared"]}


def _faulty(seed: int, rate: float):
    """A responder that injects a fault into ``rate`` of requests, chosen per (item, attempt).

    The choice hashes the item and how often it was asked, so it does not depend on the order
    in which concurrent requests arrive.
    """
    lock = threading.Lock()
    seen: dict[str, int] = {}
    transport = [Fault.status(429, retry_after=0.01), Fault.status(500), Fault.hang(1.2),
                 Fault.disconnect(), Fault.bad_body(), Fault.slow(0.05)]
    content = [Fault.malformed(), Fault.empty(), Fault.truncated(keep=0.3)]
    injected: list[str] = []

    def responder(body):
        item = next(m["content"] for m in body["messages"] if m["role"] == "user")
        with lock:
            k = seen[item] = seen.get(item, 0) + 1
        rng = random.Random(f"{seed}:{item}:{k}")
        is_first_ask = len(body["messages"]) == 2
        if rng.random() < rate:
            pool = transport + (content if is_first_ask else [])
            fault = rng.choice(pool)
            with lock:
                injected.append(fault.kind if fault.kind != "status" else str(fault.status_code))
            if fault.kind == "truncated":
                return Fault.truncated(_answer(body), keep=0.3)
            if fault.kind == "slow":
                return Fault.slow(0.05, _answer(body))
            return fault
        return _answer(body)

    return responder, injected


async def test_twenty_percent_faults_give_the_same_results(llm_server, loopback_judge, tmp_path):
    # a budget below the cap: a reply cut at it can be asked again with more room (one cut at
    # the cap is not asked again, test_reask_cap.py)
    items = [LabelIn(text=f"item {i}", budget=1000) for i in range(40)]
    llm_server.set_responder(_answer)
    clean = loopback_judge(no_cache=True)
    expected = await asyncio.gather(*(clean.run(LabelStep(), x) for x in items))
    assert all(r.ok for r in expected)

    responder, injected = _faulty(seed=7, rate=0.2)
    llm_server.set_responder(responder)
    faulty = loopback_judge(cache_dir=tmp_path / "c2", timeout=0.6, concurrency=8)
    got = await asyncio.gather(*(faulty.run(LabelStep(), x) for x in items))
    assert len(injected) >= 8  # the run really met faults, of many kinds
    assert len(set(injected)) >= 5, injected
    assert [r.output for r in got] == [r.output for r in expected]
    assert faulty.stats.errors == 0 and faulty.stats.unscored == 0
    # every fault was recovered from (a dropped keep-alive connection may cost an extra retry)
    recovered = faulty.stats.retries + faulty.stats.reasks
    assert recovered >= len([k for k in injected if k != "slow"])


async def test_schema_fallback_is_remembered_per_schema(llm_server, loopback_judge):
    from ._steps import OtherStep

    def responder(body):
        rf = body.get("response_format") or {}
        if rf.get("type") == "json_schema" and rf["json_schema"]["name"] == "test_label":
            return Fault.status(400, "Invalid schema for response_format 'test_label'")
        return GOOD

    llm_server.set_responder(responder)
    judge = loopback_judge(no_cache=True)
    assert (await _run(judge)).ok
    assert (await judge.run(OtherStep(), LabelIn(text="y"))).ok
    kinds = [r.body.get("response_format", {}).get("type") for r in llm_server.requests]
    assert kinds == ["json_schema", "json_object", "json_schema"]


def test_a_transient_failure_survives_pickling_to_and_from_workers():
    # before: TransportError(step, message) could not be unpickled (its args were the message)
    import pickle

    from prism_review.llm import TransientFailure

    for exc in (TransportError("s.step", "boom"), TransientFailure("s.step", "boom")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc) and back.step == "s.step"


async def test_a_generation_step_whose_check_re_ask_fails_transiently_is_not_kept(
        llm_server, loopback_judge):
    # before: a generation step (keeps_soft_checked) kept its first answer, with a warning, when
    # its check re-ask met only faults: a row a fault-free run (whose re-ask is answered) does
    # not write, memoised and kept by a resume
    from prism_review.llm import TransientFailure

    from ._steps import DraftStep

    llm_server.script({"label": "positive", "score": 9}, Fault.malformed("nope 1"),
                      Fault.malformed("nope 2"))
    judge = loopback_judge(max_retries=1)
    with pytest.raises(TransientFailure):
        await judge.run(DraftStep(), LabelIn(text="x"))
    assert len(llm_server.requests) == 3 and judge.stats.transient == 1


async def test_early_length_cuts_at_the_cap_after_every_retry_are_transient_not_unscored(
        llm_server, loopback_judge):
    # before: replies cut with finish_reason="length" before their budget (a server's fault,
    # never the same cut twice) at a budget that may not grow were written as unscored ("not
    # asked again"), a row a fault-free run does not write and a resume keeps
    from prism_review.llm import TransientFailure

    llm_server.script(Fault.early_length(GOOD, keep=0.3), Fault.early_length(GOOD, keep=0.6))
    judge = loopback_judge(max_retries=1, max_tokens=100)  # the ask has the step's whole cap
    with pytest.raises(TransientFailure):
        await _run(judge)
    assert len(llm_server.requests) == 2
    assert judge.stats.transient == 1 and judge.stats.unscored == 0


async def test_dropping_an_unusable_reply_keeps_a_usable_one_stored_since(llm_server,
                                                                         loopback_judge):
    # before: the judge dropped whatever the key held; a usable reply another worker (or a
    # concurrent retry) stored under the key between the read and the drop was lost
    llm_server.script(Fault.malformed("nope 1"), GOOD)
    judge = loopback_judge(max_retries=1)
    assert (await _run(judge)).ok and judge.cache.count() == 1
    (key,) = set((await _run(judge)).request_ids)  # the cached usable reply's key
    good = judge.cache.get(key)[0]
    await judge.calls.forget(key, "nope 1")  # a late drop of the unusable reply read before
    assert judge.cache.count() == 1 and judge.cache.get(key)[0] == good
    await judge.calls.forget(key, good)
    assert judge.cache.count() == 0


async def test_a_cut_at_the_budget_counted_in_total_tokens_only_is_no_server_fault(
        llm_server, loopback_judge):
    # before: a thinking model behind a server that counts its reasoning in total_tokens only
    # (completion_tokens: the visible text) looked cut before its budget, a server's fault: the
    # same request was paid again (up to max_retries times when the visible cut varies, then
    # the unit failed as transient) before the longer ask; and the reasoning went unpriced
    llm_server.reasoning_outside_completion = True
    llm_server.script(Fault.truncated(GOOD, keep=0.3), GOOD)
    judge = loopback_judge(max_tokens=1000)
    res = await judge.run(LabelStep(), LabelIn(text="x", budget=50))
    assert res.ok and judge.stats.retries == 0
    first, second = llm_server.requests
    assert first.body["max_tokens"] == 50 and second.body["max_tokens"] == 100  # the longer ask
    assert res.usage.completion_tokens >= 50  # the budget the cut reply spent is counted

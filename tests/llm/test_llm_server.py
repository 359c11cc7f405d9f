"""The loopback server itself: endpoints, scripting modes, recording and replay."""

from __future__ import annotations

import json

import openai
import pytest
from pydantic import BaseModel

from prism_review.llm.parse import response_schema
from prism_review.testing.llm_server import Fault, LLMServer
from prism_review.testing.schema_echo import example_for_schema

from ._steps import LabelIn, LabelOut, LabelStep


def _client(server):
    return openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)


async def test_models_endpoint(llm_server):
    llm_server.models = ["a", "b"]
    page = await _client(llm_server).models.list()
    assert [m.id for m in page.data] == ["a", "b"]


def test_binds_loopback_with_ephemeral_port():
    with LLMServer() as one, LLMServer() as two:
        assert one.base_url.startswith("http://127.0.0.1:")
        assert one.base_url != two.base_url


async def test_precedence_script_then_responder_then_canned_then_echo(llm_server):
    c = _client(llm_server)

    async def ask(**kw):
        r = await c.chat.completions.create(model="m", messages=[{"role": "user",
                                                                  "content": "hi"}], **kw)
        return r.choices[0].message.content

    assert await ask() == "hi"  # plain echo of the last user message
    assert await ask(response_format={"type": "json_object"}) == "{}"
    llm_server.canned("s", "one", {"n": 2})
    hdr = {"extra_headers": {"X-Prism-Step": "s"}}
    assert await ask(**hdr) == "one"
    assert json.loads(await ask(**hdr)) == {"n": 2}
    assert json.loads(await ask(**hdr)) == {"n": 2}  # the last canned reply repeats
    llm_server.set_responder(lambda body: "from responder")
    assert await ask(**hdr) == "from responder"
    llm_server.script("scripted")
    assert await ask(**hdr) == "scripted"
    assert await ask(**hdr) == "from responder"
    assert [r.step for r in llm_server.requests][-1] == "s"


class Nested(BaseModel):
    tags: list[LabelOut]
    kind: str | None
    n: int


def test_schema_echo_is_valid():
    schema, _ = response_schema(Nested)
    Nested.model_validate(example_for_schema(schema))
    LabelOut.model_validate(example_for_schema(response_schema(LabelOut)[0]))
    assert example_for_schema({"type": "array", "minItems": 2, "items": {"const": 1}}) == [1, 1]


async def test_echo_mode_serves_valid_structured_output(llm_server, loopback_judge):
    res = await loopback_judge().run(LabelStep(), LabelIn(text="x"))
    assert res.ok and res.output.label == "positive"  # first enum value


async def test_record_and_replay(tmp_path, llm_server, loopback_judge):
    llm_server.set_responder(lambda body: {"label": "negative", "score": 1})
    await loopback_judge(api_key="sk-live-secret").run(LabelStep(), LabelIn(text="x"))
    path = tmp_path / "rec.jsonl"
    llm_server.save_recording(path)
    assert b"sk-live-secret" not in path.read_bytes()
    with LLMServer() as replay:
        replay.replay(path)
        c = _client(replay)
        body = json.loads(path.read_text().splitlines()[0])["body"]
        r = await c.chat.completions.create(**body)
        assert json.loads(r.choices[0].message.content) == {"label": "negative", "score": 1}


async def test_fault_kinds_seen_by_sdk(llm_server):
    c = _client(llm_server)
    msgs = [{"role": "user", "content": "hi"}]
    llm_server.script(Fault.status(429, retry_after=1.5), Fault.status(401), Fault.empty(),
                      Fault.truncated("abcdefgh", keep=0.5))
    with pytest.raises(openai.RateLimitError) as info:
        await c.chat.completions.create(model="m", messages=msgs)
    assert info.value.response.headers["retry-after"] == "1.5"
    with pytest.raises(openai.AuthenticationError):
        await c.chat.completions.create(model="m", messages=msgs)
    r = await c.chat.completions.create(model="m", messages=msgs)
    assert r.choices[0].message.content == ""
    r = await c.chat.completions.create(model="m", messages=msgs)
    assert r.choices[0].message.content == "abcd" and r.choices[0].finish_reason == "length"
    assert [x.fault for x in llm_server.requests] == ["status", "status", "content", "truncated"]


async def test_an_output_limit_cuts_long_replies_with_finish_reason_length(llm_server):
    """``max_output_tokens`` (a model's limit) and ``enforce_max_tokens`` (the request's budget)
    cut a reply longer than the limit, in 4-character tokens, as a provider does."""
    c = _client(llm_server)
    msgs = [{"role": "user", "content": "hi"}]
    long = "x" * 400  # 101 tokens
    llm_server.script(long, long, long, long)
    r = await c.chat.completions.create(model="m", messages=msgs, max_tokens=10)
    assert r.choices[0].message.content == long and r.choices[0].finish_reason == "stop"  # off by default
    llm_server.max_output_tokens = 50
    r = await c.chat.completions.create(model="m", messages=msgs, max_tokens=10)
    assert r.choices[0].message.content == "x" * 200 and r.choices[0].finish_reason == "length"
    llm_server.enforce_max_tokens = True
    r = await c.chat.completions.create(model="m", messages=msgs, max_tokens=10)
    assert r.choices[0].message.content == "x" * 40 and r.choices[0].finish_reason == "length"
    llm_server.max_output_tokens = None
    r = await c.chat.completions.create(model="m", messages=msgs, max_tokens=200)
    assert r.choices[0].message.content == long and r.choices[0].finish_reason == "stop"
    assert [x.finish for x in llm_server.requests] == ["stop", "length", "length", "stop"]

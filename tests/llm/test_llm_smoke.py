"""End-to-end smoke test: the real SDK against the loopback server."""

from __future__ import annotations

from ._steps import LabelIn, LabelStep


async def test_round_trip_through_real_sdk(llm_server, loopback_judge):
    llm_server.canned("test.label", {"label": "positive", "score": 3, "reasons": ["b", "a"]})
    judge = loopback_judge()
    res = await judge.run(LabelStep(), LabelIn(text="great paper"))
    assert res.ok, res.error
    assert res.output.label == "positive"
    assert res.output.reasons == ["a", "b"]  # finalize applied
    assert res.usage.calls == 1
    body = llm_server.requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "test_label"
    assert body["messages"][1]["content"] == "great paper"

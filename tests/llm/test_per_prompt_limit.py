"""A server whose output limit is per prompt (vLLM: its context length minus the prompt) is not
asked the same cut reply twice.

Such a limit is not the model's (``llm/budget.py`` does not remember it), so before, a reply cut
at the budget the server granted was re-asked at twice the budget, the server's 400 shrank the
re-ask back to the budget the first ask already had, and the same cut reply was paid for twice.
The re-ask is now never sent with a budget not larger than the one the first ask was granted:
the judge knows the granted budget (also from the cache), and the client refuses to send a
re-ask the server would shrink to it (``Request.floor``). The loopback server answers as vLLM
does (``LLMServer.context_length``), so the whole path runs through the real SDK.
"""

from __future__ import annotations

import json
from typing import Any

from prism_review.llm.budget import allowed_max_tokens
from prism_review.testing.llm_reply import prompt_tokens

from ._steps import LabelIn, LabelStep

#: a reply of about 1,200 tokens: longer than any budget the tests' server allows
LONG = {"label": "neutral", "score": 1, "reasons": [f"reason number {i}" for i in range(250)]}
FULL = json.dumps(LONG)


def _asked(llm_server: Any) -> list[tuple[int, str | None]]:
    return [(int(r.body["max_tokens"]), r.fault or r.finish) for r in llm_server.requests]


def _prompt(inp: LabelIn) -> int:
    return prompt_tokens({"messages": [m.model_dump() for m in LabelStep().messages(inp)]})


async def test_a_reply_cut_at_the_prompts_limit_is_not_paid_twice(llm_server, loopback_judge):
    inp = LabelIn(text="a long review", budget=2000)
    llm_server.set_responder(lambda body: FULL)
    llm_server.context_length = _prompt(inp) + 500  # 500 output tokens for this prompt
    judge = loopback_judge()
    res = await judge.run(LabelStep(), inp)
    assert res.status == "unscored" and res.raw is not None  # the cut reply is kept
    assert "not asked again" in res.error and "500 tokens" in res.error
    # the 400, then the granted 500 (cut); no re-ask at 4,000 shrunk back to 500 and paid again
    assert _asked(llm_server) == [(2000, "context_length"), (500, "length")]
    assert judge.stats.usage.calls == 1 and judge.stats.reasks == 0
    assert judge.stats.errors == 0


async def test_the_granted_budget_is_remembered_in_the_cache(llm_server, loopback_judge):
    inp = LabelIn(text="a long review", budget=2000)
    llm_server.set_responder(lambda body: FULL)
    llm_server.context_length = _prompt(inp) + 500
    first = await loopback_judge().run(LabelStep(), inp)
    llm_server.requests.clear()
    again = loopback_judge()  # the same cache: the first ask is answered from it
    res = await again.run(LabelStep(), inp)
    assert res.status == "unscored" and res.error == first.error
    assert llm_server.requests == []  # not even a re-ask the server answers 400
    assert again.stats.usage.cache_hits == 1 and again.stats.usage.calls == 0


async def test_a_re_ask_the_server_would_shrink_to_the_first_budget_is_not_sent(
        llm_server, loopback_judge):
    """The first ask had exactly what the prompt may have (so it was not shrunk): the re-ask's
    400 states the same budget again, and the client does not send the same request twice."""
    inp = LabelIn(text="a long review", budget=500)
    llm_server.set_responder(lambda body: FULL)
    llm_server.context_length = _prompt(inp) + 500
    judge = loopback_judge()
    res = await judge.run(LabelStep(), inp)
    assert res.status == "unscored" and "not asked again" in res.error
    assert "500 tokens" in res.error and "allows at most 500 output tokens" in res.error
    assert _asked(llm_server) == [(500, "length"), (1000, "context_length")]
    assert judge.stats.usage.calls == 1 and judge.stats.reasks == 0
    assert judge.stats.errors == 0  # a re-ask not sent is no failed call (max_errors)


async def test_a_re_ask_the_prompt_has_room_for_is_still_sent(llm_server, loopback_judge):
    """The rule takes nothing away: a re-ask the server allows more than the first ask's budget
    is sent at the largest budget it allows, and the reply that fits is scored."""
    need = len(FULL) // 4 + 1
    inp = LabelIn(text="a long review", budget=need // 2 + 50)  # twice it: more than the room
    llm_server.set_responder(lambda body: FULL)
    llm_server.context_length = _prompt(inp) + need + 10
    judge = loopback_judge()
    res = await judge.run(LabelStep(), inp)
    assert res.ok and len(res.output.reasons) == 250
    assert _asked(llm_server) == [(inp.budget, "length"), (2 * inp.budget, "context_length"),
                                  (need + 10, "stop")]


def test_the_servers_message_is_vllms_and_is_read() -> None:
    from prism_review.testing.llm_reply import context_error

    class Owner:
        context_length = 4096

    body = {"messages": [{"role": "user", "content": "x" * 400}], "max_tokens": 8000}
    msg = context_error(Owner(), body)  # type: ignore[arg-type]
    assert msg is not None and msg.startswith(
        "This model's maximum context length is 4096 tokens. However, you requested 8101 tokens "
        "(101 in the messages, 8000 in the completion).")
    assert allowed_max_tokens(msg, 8000) == 4096 - 101
    assert context_error(Owner(), {**body, "max_tokens": 3995}) is None  # fits exactly

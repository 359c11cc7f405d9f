"""``flaws.extend``: one system review added to the human panel's consolidated flaws."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from prism_review.judge.base import OfflineJudge
from prism_review.judge.flaws.extend import (
    ExtendInput,
    ExtendOutput,
    ExtendStep,
    RaisedFlaw,
    pairing_flaws,
)
from prism_review.judge.flaws.models import ConsolidateInput, MicroFlaw, ReviewerText
from prism_review.judge.flaws.steps import ConsolidateStep
from prism_review.testing import flaw_decisions

from .test_economical import _evaluate_paper
from .test_steps_offline import H1, H2, LLM

PANEL = [
    MicroFlaw(flaw_id="F01", macro_topic="x", core_summary="No ablation of the gating module.",
              raw_arguments={"Human_1": "There is no ablation study", "Human_2": "no ablation study"}),
    MicroFlaw(flaw_id="N01", core_summary="Typos.", raw_arguments={"Human_1": "several typos"}),
]


def _inp(text: str = "The ablation is missing. The method assumes stationarity.") -> ExtendInput:
    return ExtendInput(paper_id="p", flaws=PANEL, review=ReviewerText(reviewer_id="LLM_Reviewer", text=text))


def test_finalize_keeps_a_listed_id_once_and_numbers_new_flaws_apart_from_listed_ids():
    out = ExtendOutput(raised=[
        RaisedFlaw(flaw_id=" F01 ", quote="first"), RaisedFlaw(flaw_id="F01", quote="second"),
        RaisedFlaw(flaw_id="N01", quote="typos again"),  # a listed id that looks new: the listed flaw
        RaisedFlaw(flaw_id="X7", macro_topic="assumption", core_summary=" Strong assumption. ", quote="q"),
        RaisedFlaw(flaw_id="", core_summary="Small dataset.", quote="d"),
    ])
    got = ExtendStep().finalize(_inp(), out).raised
    assert [(r.flaw_id, r.quote) for r in got] == [("F01", "first"), ("N01", "typos again"), ("N02", "q"),
                                                   ("N03", "d")]
    assert got[2].core_summary == "Strong assumption." and got[0].core_summary == ""


def test_a_new_flaw_without_a_summary_is_re_asked():
    step = ExtendStep()
    bad = ExtendOutput(raised=[RaisedFlaw(flaw_id="F9", quote="q")])
    assert "F9" in (step.check(_inp(), bad) or "") and "F01" in (step.check(_inp(), bad) or "")
    assert step.check(_inp(), ExtendOutput(raised=[RaisedFlaw(flaw_id="F01", quote="q")])) is None


def test_the_shared_part_comes_first_and_is_the_same_for_every_review():
    a, b = (ExtendStep().messages(_inp(t)) for t in ("Review A text.", "Review B text."))
    assert a[0].content == b[0].content
    user_a, user_b = a[1].content, b[1].content
    cut = user_a.index("[REVIEWER:")
    assert user_a[:cut] == user_b[:cut] and "No ablation of the gating module." in user_a[:cut]
    assert "same specific problem" in a[0].content  # Step 1's grouping rules, word for word


def test_pairing_flaws_add_the_quote_to_raised_panel_flaws_and_append_new_ones():
    raised = [RaisedFlaw(flaw_id="F01", quote="ablation missing"),
              RaisedFlaw(flaw_id="N02", macro_topic="t", core_summary="Assumes stationarity.", quote="assumes")]
    got = pairing_flaws(PANEL, raised, "LLM_Reviewer")
    assert [f.flaw_id for f in got] == ["F01", "N01", "N02"]
    assert got[0].raw_arguments == {**PANEL[0].raw_arguments, "LLM_Reviewer": "ablation missing"}
    assert got[1] == PANEL[1] and got[2].raw_arguments == {"LLM_Reviewer": "assumes"}


async def test_offline_extension_matches_the_joint_consolidation_s_grouping():
    """The offline route clusters the review with the panel's flaws: the LLM's ablation point
    joins the humans' ablation flaw, its stationarity assumption is new."""
    judge = OfflineJudge()
    humans = [ReviewerText(reviewer_id="Human_1", text=H1), ReviewerText(reviewer_id="Human_2", text=H2)]
    panel = (await judge.run(ConsolidateStep(), ConsolidateInput(paper_id="p", reviews=humans))).output
    assert panel is not None and panel.micro_flaws
    text = LLM + "\n- There is no ablation study of the gating module."
    res = await judge.run(ExtendStep(), ExtendInput(paper_id="p", flaws=panel.micro_flaws,
                                                    review=ReviewerText(reviewer_id="LLM_Reviewer", text=text)))
    assert res.ok and res.output is not None
    ablation = next(f.flaw_id for f in panel.micro_flaws if "Human_2" in f.raw_arguments
                    and "ablation" in f.raw_arguments["Human_2"].lower())
    ids = [r.flaw_id for r in res.output.raised]
    assert ablation in ids and any(i.startswith("N") for i in ids)


async def test_a_failed_extension_leaves_only_its_pairing_unscored(llm_server, loopback_judge, tmp_path):
    answer = flaw_decisions.responder(llm_server.default_reply)

    def respond(body: dict[str, Any]) -> Any:
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        sent = " ".join(str(m.get("content") or "") for m in body["messages"])
        if name == "flaws_extend" and "The metric is a concern" in sent:
            return "not json"
        return answer(body)

    llm_server.set_responder(respond)
    rows = await _evaluate_paper(loopback_judge(), tmp_path / "m", 3, "economical")
    status = Counter((r.pairing, r.status) for r in rows)
    assert status[("sys1", "unscored")] == 3  # the two humans and sys1 in sys1's pairing
    assert not any(r.status != "ok" for r in rows if r.pairing != "sys1")
    assert status[(None, "ok")] == 2  # the human-only bank needs no extension


async def test_a_failed_extension_changes_no_other_unit_s_call_or_row(llm_server, loopback_judge, tmp_path):
    """A context-sensitive judge (every answer a hash of the whole request): with sys1's extension
    unusable, every other unit's requests and rows are the fault-free run's, byte for byte (no
    fallback of sys1's pairing reaches the human side or another pairing)."""
    llm_server.context_seed = 3
    answer = flaw_decisions.responder(llm_server.default_reply)
    llm_server.set_responder(answer)
    clean = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "c1"), tmp_path / "m1", 3, "economical")
    sent_clean = [r.body for r in llm_server.requests]
    llm_server.requests.clear()

    def respond(body: dict[str, Any]) -> Any:
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        if name == "flaws_extend" and "The metric is a concern" in str(body["messages"]):
            return "not json"
        return answer(body)

    llm_server.set_responder(respond)
    rows = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "c2"), tmp_path / "m2", 3, "economical")
    sent = [r.body for r in llm_server.requests if not (r.step == "flaws.extend" and "The metric is a concern" in str(r.body))]
    # every call of the faulty run (sys1's extension aside) is one the fault-free run made, and
    # what the fault-free run made beyond them is sys1's pairing's later calls only
    left = Counter(json.dumps(b, sort_keys=True) for b in sent_clean)
    left.subtract(json.dumps(b, sort_keys=True) for b in sent)
    assert sent and min(left.values()) >= 0
    extra = [json.loads(k)["response_format"]["json_schema"]["name"] for k, n in left.items() for _ in range(n)]
    assert sorted(extra) == ["flaws_extend", "flaws_map", "flaws_validate"]  # sys1's own, once each

    def key(r: Any) -> tuple[Any, ...]:
        return (r.unit_key, r.reviewer_id, r.status, r.metrics, r.extracted.get("micro_flaws"))

    others = [key(r) for r in rows if r.pairing != "sys1"]
    assert others == [key(r) for r in clean if r.pairing != "sys1"] and len(others) == 2 * 3 + 2
    assert {r.status for r in rows if r.pairing == "sys1"} == {"unscored"}

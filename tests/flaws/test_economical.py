"""Economical flaws (``--protocol economical``): the paper's pieces asked once, through the server.

* a human review is consolidated (its flaws extracted) once per paper, whatever the number of
  LLM systems it is paired with; the reference protocol re-sends it once per pairing;
* a resumed run reuses the memoised pieces (no consolidate or validate call again);
* an outage leaves the units unwritten (not unscored, not zero), and the re-run completes them;
* on the demo, with a judge whose decisions do not depend on how calls are grouped
  (:mod:`prism_review.testing.flaw_decisions`), both protocols give the same metrics row for row.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.dimensions.memo import MemoStore
from prism_review.judge.fence import fence
from prism_review.pipelines.results import read_results
from prism_review.records import Paper, Review, Section
from prism_review.testing import flaw_decisions
from prism_review.testing.llm_server import Fault, LLMServer

from .test_steps_offline import PAPER

VENUE = "ICLR2025"
HUMAN_TEXT = [
    "The baseline set is weak. The notation in Section 2 is unclear.",
    "Only one dataset is used. The baseline set misses recent methods.",
]
SYSTEM_TEXT = "The ablation study is missing. The dataset is small."
#: one concern of each system's own (so each pairing's issue bank differs)
OWN = ["scalability", "metric", "figure"]


def _review(system: str, rid: str, text: str) -> Review:
    return Review(paper_id="p1", venue=VENUE, system=system, reviewer_id=rid,
                  sections=[Section(name="Weaknesses", text=text)])


def _paper(n_systems: int) -> tuple[Paper, dict[str, list[Review]], list[str]]:
    paper = Paper(paper_id="p1", venue=VENUE, full_text=PAPER)
    reviews: dict[str, list[Review]] = {"human": [_review("human", f"r{i}", t) for i, t in enumerate(HUMAN_TEXT, 1)]}
    systems = [f"sys{k}" for k in range(n_systems)]
    for s in systems:
        reviews[s] = [_review(s, s, f"{SYSTEM_TEXT} The {OWN[int(s[3:])]} is a concern.")]
    return paper, reviews, ["human", *systems]


async def _evaluate_paper(judge: Any, memo: Path, n_systems: int, protocol: str,
                          only_first: bool = False) -> list[Any]:
    dim = get_dimension("flaws")
    paper, reviews, systems = _paper(n_systems)
    ctx = RunContext(judge, settings={"protocol": protocol}, memo_store=MemoStore(memo))
    units = list(dim.work_units(paper, reviews, systems))
    rows = []
    for unit in units[:1] if only_first else units:
        rows += await dim.evaluate(unit, ctx)
    return rows


def _calls_with(server: LLMServer, step: str, text: str) -> int:
    return sum(1 for r in server.requests
               if r.step == step and any(text in (m.get("content") or "") for m in r.messages))


def _sent(r: Any) -> str:
    return " ".join(str(m.get("content") or "") for m in r.messages)


@pytest.mark.parametrize("n_systems", [1, 3])
async def test_the_human_side_is_asked_once_per_paper_and_each_pairing_holds_one_review(
        llm_server, loopback_judge, tmp_path, n_systems):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    rows = await _evaluate_paper(loopback_judge(), tmp_path / "eco", n_systems, "economical")
    steps = Counter(r.step for r in llm_server.requests)
    assert rows and all(r.status == "ok" for r in rows)
    assert all(r.extracted["pieces"] == "human-side" for r in rows)
    # the human side: one consolidation, one validation, one mapping of the humans, per paper
    assert _calls_with(llm_server, "flaws.consolidate", HUMAN_TEXT[0]) == 1 == steps["flaws.consolidate"]
    assert _calls_with(llm_server, "flaws.map_batch", HUMAN_TEXT[0]) == 1 == steps["flaws.map_batch"]
    batch = next(r for r in llm_server.requests if r.step == "flaws.map_batch")
    assert batch.messages[-1]["content"].count("<<<BEGIN REVIEW") == 2  # the humans only
    # per pairing: one flaws.extend and one flaws.map, each holding the one system review and
    # no other system's; the validations of the new flaws of each pairing after the panel's
    assert steps["flaws.extend"] == n_systems == steps["flaws.map"]
    assert steps["flaws.validate"] == 1 + n_systems
    for step in ("flaws.extend", "flaws.map", "flaws.validate"):
        for r in llm_server.requests:
            if r.step == step and SYSTEM_TEXT.split(".")[0] in _sent(r):
                assert sum(f"The {own} is a concern" in _sent(r) for own in OWN) <= 1
    for r in llm_server.requests:
        if r.step in ("flaws.consolidate", "flaws.map_batch"):
            assert SYSTEM_TEXT not in _sent(r)  # the human side never holds a system review
    extend = next(r for r in llm_server.requests if r.step == "flaws.extend")
    user = extend.messages[-1]["content"]
    assert user.index("MICRO-FLAWS") < user.index("<<<BEGIN REVIEW")  # the shared part first
    # the reference protocol re-reads the human review in every pairing and the human-only bank
    llm_server.requests.clear()
    await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "ref-cache"), tmp_path / "ref", n_systems, "reference")
    assert _calls_with(llm_server, "flaws.consolidate", HUMAN_TEXT[0]) == n_systems + 1
    assert _calls_with(llm_server, "flaws.map", HUMAN_TEXT[0]) == n_systems + 1


@pytest.mark.parametrize("n_systems", [1, 3])
async def test_pooled_asks_each_piece_once_over_every_review_of_the_paper(
        llm_server, loopback_judge, tmp_path, n_systems):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    rows = await _evaluate_paper(loopback_judge(), tmp_path / "pooled", n_systems, "pooled")
    steps = Counter(r.step for r in llm_server.requests)
    assert rows and all(r.status == "ok" for r in rows)
    assert all(r.extracted["pieces"] == "paper" for r in rows)
    assert _calls_with(llm_server, "flaws.consolidate", HUMAN_TEXT[0]) == 1
    assert steps["flaws.consolidate"] == 1 and steps["flaws.validate"] == 1
    # every review mapped in one call per paper: the two humans and each system's review
    assert steps["flaws.map_batch"] == 1 and "flaws.map" not in steps and "flaws.extend" not in steps
    batch = next(r for r in llm_server.requests if r.step == "flaws.map_batch")
    user = batch.messages[-1]["content"]
    assert user.count("<<<BEGIN ISSUE_BANK") == 1  # the bank sent once
    assert user.count("<<<BEGIN REVIEW") == 2 + n_systems


async def test_a_system_rows_do_not_move_when_another_system_joins(llm_server, loopback_judge, tmp_path):
    """A context-sensitive judge (every answer a hash of the whole request): sys0's rows are the
    same with one system or three under economical; under pooled they move."""
    llm_server.context_seed = 5
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))

    async def sys0(n: int, protocol: str) -> list[Any]:
        rows = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / f"c{n}{protocol}"),
                                     tmp_path / f"m{n}{protocol}", n, protocol)
        return [(r.reviewer_id, r.status, r.metrics, r.extracted["micro_flaws"]) for r in rows
                if r.system == "sys0"]

    alone, joined = await sys0(1, "economical"), await sys0(3, "economical")
    assert alone and alone == joined
    assert await sys0(1, "pooled") != await sys0(3, "pooled")


async def test_a_resumed_run_does_not_redo_memoised_pieces(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    memo = tmp_path / "memo"
    first = await _evaluate_paper(loopback_judge(), memo, 2, "economical", only_first=True)
    assert first and all(r.status == "ok" for r in first)
    done = Counter(r.step for r in llm_server.requests)
    assert done["flaws.consolidate"] == 1 and done["flaws.map_batch"] == 1 and done["flaws.extend"] == 1
    llm_server.requests.clear()
    # a new process: a fresh memo store on the same folder and an empty reply cache
    rows = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "fresh-cache"), memo, 2, "economical")
    again = Counter(r.step for r in llm_server.requests)
    # the human side came from the memo; only the second pairing's own calls were made
    assert again["flaws.extend"] == 1 and again["flaws.map"] == 1
    assert set(again) <= {"flaws.extend", "flaws.validate", "flaws.map"}
    assert _calls_with(llm_server, "flaws.extend", "The metric is a concern") == 1
    assert [r.metrics for r in rows[: len(first)]] == [r.metrics for r in first]


async def test_panel_units_from_the_paper_pieces_equal_the_reference(llm_server, loopback_judge, tmp_path):
    """A paper without human reviews: each system against the others (Panel_k), every protocol
    (economical asks each panel unit as the reference does; pooled builds them from the paper's pieces)."""
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    dim = get_dimension("flaws")
    paper, reviews, systems = _paper(3)
    reviews["human"] = []
    got = {}
    for protocol in ("reference", "economical", "pooled"):
        ctx = RunContext(loopback_judge(cache_dir=tmp_path / f"c-{protocol}"), settings={"protocol": protocol},
                         memo_store=MemoStore(tmp_path / protocol))
        units = list(dim.work_units(paper, reviews, systems))
        assert [u.extra["reference"] for u in units] == ["panel"] * 3
        rows = [r for u in units for r in await dim.evaluate(u, ctx)]
        got[protocol] = [(r.unit_key, r.extracted["pool_id"], r.status, r.metrics) for r in rows]
    assert got["economical"] == got["reference"] == got["pooled"]
    assert all(status == "ok" for _, _, status, _ in got["economical"])
    # not a comparison of empty rows: each review detected flaws and the panels found valid ones
    assert all(m["n_detected"] and m["gt_valid"] for *_, m in got["economical"])


def _batch_fault(server: LLMServer, drop: str, single_fault: str | None = None) -> None:
    """map_batch replies that always leave out review ``drop``; optionally, the one-review
    mapping of the review holding ``single_fault`` gets an unusable reply."""
    answer = flaw_decisions.responder(server.default_reply)

    def respond(body: dict[str, Any]) -> Any:
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        out = answer(body)
        sent = " ".join(str(m.get("content") or "") for m in body["messages"])  # a re-ask too
        if name == "flaws_map_batch":
            out["reviews"] = [r for r in out["reviews"] if r["reviewer_id"] != drop]
        if name == "flaws_map" and single_fault and single_fault in sent:
            return "not json"
        return out

    server.set_responder(respond)


async def test_a_failed_batched_mapping_falls_back_to_one_call_per_review(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    clean = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "c1"), tmp_path / "m1", 2, "economical")
    llm_server.requests.clear()
    _batch_fault(llm_server, drop="Human_2")
    rows = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "c2"), tmp_path / "m2", 2, "economical")
    steps = Counter(r.step for r in llm_server.requests)
    assert steps["flaws.map_batch"] == 2  # the answer and its re-ask, both without Human_2
    assert steps["flaws.map"] == 4  # then each review on its own, once per paper
    assert [(r.unit_key, r.reviewer_id, r.status, r.metrics) for r in rows] == [
        (r.unit_key, r.reviewer_id, r.status, r.metrics) for r in clean]


async def test_a_review_whose_mapping_fails_is_the_only_one_unscored(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    clean = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "c1"), tmp_path / "m1", 2, "economical")
    _batch_fault(llm_server, drop="Human_1", single_fault=HUMAN_TEXT[1])  # Human_2's own mapping fails
    rows = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "c2"), tmp_path / "m2", 2, "economical")
    assert len(rows) == len(clean) and all(r.status == "ok" for r in rows)
    for got, want in zip(rows, clean, strict=True):
        if got.extracted["pool_id"] == "Human_2":
            assert got.extracted["mapping_error"] and got.metrics["ncps"] is None
            assert want.metrics["ncps"] is not None
            # its CFI does not need the mapping: unchanged
            assert got.metrics["critical_recall"] == want.metrics["critical_recall"]
        else:
            assert got.extracted["mapping_error"] is None and got.metrics == want.metrics


# -- the whole demo through the CLI ---------------------------------------------------------


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")


def _evaluate(url: str, out: Path, cache: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["evaluate", "--judge", f"openai-compatible/test-model@{url}",
                                    "--dimension", "flaws", "--out", str(out), "--cache-dir", str(cache),
                                    "--quiet", "--no-report", *extra])


def _by_row(out: Path) -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    if not (out / "results.jsonl").exists():
        return {}
    return {(r.unit_key, r.reviewer_id): (r.status, r.metrics) for r in read_results(out)}


@pytest.fixture
def decisions_server():
    server = LLMServer().start()
    server.set_responder(flaw_decisions.responder(server.default_reply))
    try:
        yield server
    finally:
        server.stop()


def test_both_protocols_give_the_same_flaw_metrics_on_the_demo(decisions_server, tmp_path):
    res = _evaluate(decisions_server.base_url, tmp_path / "ref", tmp_path / "c-ref", "--protocol", "reference")
    assert res.exit_code == 0, res.output
    ref_steps = Counter(r.step for r in decisions_server.requests)
    decisions_server.requests.clear()
    res = _evaluate(decisions_server.base_url, tmp_path / "eco", tmp_path / "c-eco", "--protocol", "economical")
    assert res.exit_code == 0, res.output
    eco_steps = Counter(r.step for r in decisions_server.requests)
    ref, eco = _by_row(tmp_path / "ref"), _by_row(tmp_path / "eco")
    assert eco == ref
    ok = [m for status, m in ref.values() if status == "ok"]
    # the comparison is not between empty rows: flaws were found, some missed, some mapped
    assert len(ok) > 50 and any(m["gt_valid"] for m in ok)
    assert {m["critical_recall"] for m in ok if m["critical_recall"] is not None} - {0.0, 1.0}
    assert any(m["ncps"] is not None for m in ok)
    # the human side once per paper, then one extension and one mapping per pairing
    papers = len({k.rsplit("/flaws/", 1)[0] for k, _ in ref})
    pairings = len({k for k, _ in ref if not k.endswith("/human-only")})
    assert eco_steps["flaws.consolidate"] == papers < ref_steps["flaws.consolidate"]
    assert eco_steps["flaws.map_batch"] <= papers  # the humans of a paper in one call
    assert eco_steps["flaws.extend"] == pairings
    assert eco_steps["flaws.map"] <= pairings  # none fell back to one call per human
    assert eco_steps["flaws.validate"] <= papers + pairings
    assert eco_steps.total() < ref_steps.total()
    # the pooled protocol: the same decisions, each piece once per paper over every review
    decisions_server.requests.clear()
    res = _evaluate(decisions_server.base_url, tmp_path / "pooled", tmp_path / "c-pooled", "--protocol", "pooled")
    assert res.exit_code == 0, res.output
    pooled_steps = Counter(r.step for r in decisions_server.requests)
    assert _by_row(tmp_path / "pooled") == ref
    assert pooled_steps["flaws.consolidate"] == papers and pooled_steps["flaws.validate"] <= papers
    assert pooled_steps["flaws.map_batch"] <= papers and "flaws.map" not in pooled_steps


def test_an_outage_leaves_units_unwritten_and_the_rerun_completes_them(decisions_server, tmp_path, monkeypatch):
    monkeypatch.setenv("PRISM_MAX_RETRIES", "1")
    url = decisions_server.base_url
    res = _evaluate(url, tmp_path / "clean", tmp_path / "c-clean", "--limit", "3")
    assert res.exit_code == 0, res.output
    expected = _by_row(tmp_path / "clean")
    answer = flaw_decisions.responder(decisions_server.default_reply)
    down = threading.Event()
    down.set()

    def no_validation(body: dict[str, Any]) -> Any:  # validation calls get no reply at all
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        if down.is_set() and name == "flaws_validate":
            return Fault.status(500)
        return answer(body)

    decisions_server.set_responder(no_validation)
    out, cache = tmp_path / "run", tmp_path / "c-run"
    res = _evaluate(url, out, cache, "--limit", "3", "--max-errors", "0")
    assert res.exit_code == 1, res.output
    assert not _by_row(out)  # no row written: not unscored, not zero
    decisions_server.requests.clear()
    down.clear()
    # an empty reply cache: only the run's memo can spare the consolidations already made
    res = _evaluate(url, out, tmp_path / "c-rerun", "--limit", "3", "--max-errors", "0")
    assert res.exit_code == 0, res.output
    assert _by_row(out) == expected
    # the consolidations memoised before the outage are not asked again
    steps = Counter(r.step for r in decisions_server.requests)
    assert "flaws.consolidate" not in steps and steps["flaws.validate"] > 0


def test_the_decisions_judge_answers_a_re_ask_from_the_request_material():
    """A re-ask appends the judge's reply and a follow-up; the decision stays the request's."""
    user = "[REVIEWER: Human_1]\n" + fence("REVIEW", HUMAN_TEXT[0])
    schema = {"json_schema": {"name": "flaws_consolidate"}}
    first = {"response_format": schema, "messages": [{"role": "system", "content": "s"},
                                                    {"role": "user", "content": user}]}
    again = {"response_format": schema, "messages": [*first["messages"], {"role": "assistant", "content": "{}"},
                                                    {"role": "user", "content": "Use only these ids: Human_1."}]}
    answer = flaw_decisions.responder(lambda body: {})
    assert answer(first)["micro_flaws"] and answer(again) == answer(first)

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
from prism_review.judge.fence import fence
from prism_review.pipelines.memo import MemoStore
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


@pytest.mark.parametrize("n_systems", [1, 3])
async def test_a_human_review_is_extracted_once_per_paper(llm_server, loopback_judge, tmp_path, n_systems):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    rows = await _evaluate_paper(loopback_judge(), tmp_path / "eco", n_systems, "economical")
    steps = Counter(r.step for r in llm_server.requests)
    assert rows and all(r.status == "ok" for r in rows)
    assert all(r.extracted["pieces"] == "paper" for r in rows)
    assert _calls_with(llm_server, "flaws.consolidate", HUMAN_TEXT[0]) == 1
    assert steps["flaws.consolidate"] == 1 and steps["flaws.validate"] == 1
    # every review mapped in one call per paper: the two humans and each system's review
    assert steps["flaws.map_batch"] == 1 and "flaws.map" not in steps
    batch = next(r for r in llm_server.requests if r.step == "flaws.map_batch")
    user = batch.messages[-1]["content"]
    assert user.count("<<<BEGIN ISSUE_BANK") == 1  # the bank sent once
    assert user.count("<<<BEGIN REVIEW") == 2 + n_systems
    # the reference protocol re-reads the human review in every pairing and the human-only bank
    llm_server.requests.clear()
    await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "ref-cache"), tmp_path / "ref", n_systems, "reference")
    assert _calls_with(llm_server, "flaws.consolidate", HUMAN_TEXT[0]) == n_systems + 1
    assert _calls_with(llm_server, "flaws.map", HUMAN_TEXT[0]) == n_systems + 1


async def test_a_resumed_run_does_not_redo_memoised_pieces(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    memo = tmp_path / "memo"
    first = await _evaluate_paper(loopback_judge(), memo, 2, "economical", only_first=True)
    assert first and all(r.status == "ok" for r in first)
    done = Counter(r.step for r in llm_server.requests)
    # the paper's reviews are mapped in one call, the second system's too
    assert done["flaws.consolidate"] == 1 and done["flaws.validate"] == 1 and done["flaws.map_batch"] == 1
    llm_server.requests.clear()
    # a new process: a fresh memo store on the same folder and an empty reply cache
    rows = await _evaluate_paper(loopback_judge(cache_dir=tmp_path / "fresh-cache"), memo, 2, "economical")
    again = Counter(r.step for r in llm_server.requests)
    assert not again  # every piece of the paper, sys1's mapping included, came from the memo
    assert [r.metrics for r in rows[: len(first)]] == [r.metrics for r in first]


async def test_panel_units_from_the_paper_pieces_equal_the_reference(llm_server, loopback_judge, tmp_path):
    """A paper without human reviews: each system against the others (Panel_k), both protocols."""
    llm_server.set_responder(flaw_decisions.responder(llm_server.default_reply))
    dim = get_dimension("flaws")
    paper, reviews, systems = _paper(3)
    reviews["human"] = []
    got = {}
    for protocol in ("reference", "economical"):
        ctx = RunContext(loopback_judge(cache_dir=tmp_path / f"c-{protocol}"), settings={"protocol": protocol},
                         memo_store=MemoStore(tmp_path / protocol))
        units = list(dim.work_units(paper, reviews, systems))
        assert [u.extra["reference"] for u in units] == ["panel"] * 3
        rows = [r for u in units for r in await dim.evaluate(u, ctx)]
        got[protocol] = [(r.unit_key, r.extracted["pool_id"], r.status, r.metrics) for r in rows]
    assert got["economical"] == got["reference"]
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
    # one consolidation and one validation per paper instead of one per unit
    papers = len({k.rsplit("/flaws/", 1)[0] for k, _ in ref})
    assert eco_steps["flaws.consolidate"] == papers < ref_steps["flaws.consolidate"]
    assert eco_steps["flaws.validate"] <= papers < ref_steps["flaws.validate"]
    # every paper's reviews mapped in one call (none of them fell back to one call per review)
    assert eco_steps["flaws.map_batch"] <= papers and "flaws.map" not in eco_steps


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

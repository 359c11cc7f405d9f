"""Generation end to end through the real openai SDK against the loopback server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.data.layout import EvalLayout
from prism_review.data.perturbation import load_perturbations
from prism_review.judge.base import OfflineJudge
from prism_review.reviewers import (
    GenerationNeedsLLM,
    generate_comments,
    generate_meta_reviews,
    generate_reviews,
)
from prism_review.reviewers.output import read_rows
from prism_review.tasks.perturbation import load_comments, score_perturbations
from prism_review.testing.shared import SHARED

DEV = Path(f"{SHARED}/data/perturbation/dev.jsonl")


def user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


async def test_generated_reviews_load_as_a_byo_system(review_reply, mini_layout: Path, llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: review_reply)
    layout = EvalLayout(mini_layout)
    rep = await generate_reviews(layout, "ICLR2025", "gen_test", loopback_judge(), limit=3)
    assert (rep.written, rep.skipped, rep.failed) == (3, 0, [])
    assert rep.path == mini_layout / "ICLR2025" / "gen_test" / "reviews.jsonl"
    assert rep.usage.calls == 3
    prompt = user_text(llm_server.requests[0].body)
    assert "We propose X" in prompt and "REFERENCE-MARKER" not in prompt  # cut at the references
    system = llm_server.requests[0].body["messages"][0]["content"]
    assert "Rating from 1" in system and "1, 3, 5, 6, 8, 10" in system  # venue-aware scale
    # a fresh layout discovers the folder as a system and loads the rows as reviews
    fresh = EvalLayout(mini_layout)
    assert "gen_test" in fresh.systems("ICLR2025")
    pid = fresh.paper_ids("ICLR2025")[0]
    [review] = fresh.load_reviews("ICLR2025", pid, "gen_test")
    assert [s.name for s in review.sections] == ["Summary", "Strengths", "Weaknesses", "Questions"]
    assert review.section("Weaknesses") == "- Only one baseline\n- No variance reported"
    assert review.raw_scores == {"Rating": 6, "Confidence": 4}
    assert review.scores["Rating"] == pytest.approx(5 / 9)
    assert review.reviewer_id == "LLM_Reviewer"


async def test_resume_skips_written_papers(review_reply, mini_layout: Path, llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: review_reply)
    layout = EvalLayout(mini_layout)
    await generate_reviews(layout, "ICLR2025", "gen_resume", loopback_judge(), limit=2)
    n = len(llm_server.requests)
    rep = await generate_reviews(layout, "ICLR2025", "gen_resume", loopback_judge(no_cache=True), limit=3)
    assert (rep.written, rep.skipped) == (1, 2)
    assert len(llm_server.requests) == n + 1
    assert len(read_rows(rep.path)) == 3


async def test_unparseable_reply_is_a_failure_not_a_review(review_reply, mini_layout: Path, llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: review_reply if "Things a1" in user_text(body) else "I cannot review this.")
    layout = EvalLayout(mini_layout)
    rep = await generate_reviews(layout, "ICLR2025", "gen_fail", loopback_judge(), paper_ids=["a1", "a2"])
    assert rep.written == 1 and [k for k, _ in rep.failed] == ["a2"]
    assert "unscored" in rep.failed[0][1]
    assert [r["paper_id"] for r in read_rows(rep.path)] == ["a1"]
    llm_server.set_responder(lambda body: review_reply)
    # the LLM layer caches replies, unparseable ones too: a retry with the cache would replay them
    rep2 = await generate_reviews(layout, "ICLR2025", "gen_fail", loopback_judge(no_cache=True),
                                  paper_ids=["a1", "a2"])
    assert (rep2.written, rep2.skipped, rep2.failed) == (1, 1, [])


async def test_out_of_scale_rating_is_reasked_then_dropped(review_reply, mini_layout: Path, llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: {**review_reply, "rating": 11})
    rep = await generate_reviews(EvalLayout(mini_layout), "ICLR2025", "gen_scale", loopback_judge(), paper_ids=["a1"])
    assert len(llm_server.requests) == 2  # one re-ask stating the scale problem
    assert "outside the scale" in json.dumps(llm_server.requests[1].body["messages"])
    [row] = read_rows(rep.path)
    assert "Rating" not in row["scores"] and row["extra"]["raw_rating"] == 11


async def test_icml_rating_field(review_reply, mini_layout: Path, llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: {**review_reply, "rating": 4})
    rep = await generate_reviews(EvalLayout(mini_layout), "ICML2025", "gen_icml", loopback_judge())
    [row, _] = read_rows(rep.path)
    assert row["scores"] == {"Overall Recommendation": 4}
    [review] = EvalLayout(mini_layout).load_reviews("ICML2025", row["paper_id"], "gen_icml")
    assert review.scores["Overall Recommendation"] == pytest.approx(0.75)


async def test_offline_judge_and_reserved_names_refused(mini_layout: Path) -> None:
    layout = EvalLayout(mini_layout)
    with pytest.raises(GenerationNeedsLLM, match="no offline judge"):
        await generate_reviews(layout, "ICLR2025", "gen", OfflineJudge())
    with pytest.raises(ValueError):
        await generate_reviews(layout, "ICLR2025", "human_reviews", _FakeLLM())


class _FakeLLM:
    name, mode = "fake", "llm"


async def test_meta_reviews_from_human_reviews(mini_layout: Path, llm_server, loopback_judge, tmp_path: Path) -> None:
    llm_server.set_responder(lambda body: {"metareview": "Reviewers agree it is solid.", "recommendation": "Accept",
                                           "confidence": 1.4})
    out = tmp_path / "meta.jsonl"
    rep = await generate_meta_reviews(EvalLayout(mini_layout), "ICLR2025", "human", out, loopback_judge(), limit=2)
    assert rep.written == 2
    rows = read_rows(out)
    assert rows[0]["recommendation"] == "accept" and rows[0]["confidence"] == 1.0  # clamped
    prompt = user_text(llm_server.requests[0].body)
    assert "=== Review 1 ===" in prompt and "Weak baselines." in prompt and "Scores: Rating: " in prompt


@pytest.mark.skipif(not DEV.is_file(), reason="shared perturbation dev file not present")
async def test_comments_feed_the_perturbation_scorer(llm_server, loopback_judge, tmp_path: Path) -> None:
    rows = load_perturbations(DEV, rebuild_review_input=False)[:2]
    sign = rows[0].perturbations[0]

    def responder(body: dict[str, Any]) -> Any:
        if "Uranus" not in user_text(body) or "__" in user_text(body):
            return {"comments": []}
        return {"comments": [
            {"title": "Sign", "quote": sign.perturbed, "comment_type": "Technical",
             "explanation": "Changing the sign to positive results in an exponential increase in accretion rate"},
            {"title": "Made up", "quote": "this sentence is not in the paper", "comment_type": "logical",
             "explanation": "x"},
        ]}

    llm_server.set_responder(responder)
    out = tmp_path / "comments.jsonl"
    rep = await generate_comments(rows, out, loopback_judge(), max_comments=5)
    assert rep.written == 2
    written = read_rows(out)
    assert {w["id"] for w in written} == {r.id for r in rows}
    assert written[0]["comments"][0]["comment_type"] == "technical"
    by_id, _ = load_comments(out)
    summary, per_row = await score_perturbations(rows, by_id)
    assert summary["overall"]["n_detected"] >= 1
    assert "P000_S0020" in next(r for r in per_row if r["id"] == rows[0].id)["detected"]

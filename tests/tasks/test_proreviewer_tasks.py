"""Acceptance and score tasks on ProReviewer-shaped files (train = ICLR 2025, test = ICLR 2026)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.tasks.acceptance import run_acceptance
from prism_review.tasks.scores import run_scores
from prism_review.tasks.sources import load_papers


def row(pid: str, year: int, decision: str, ratings: list[int]) -> dict[str, Any]:
    reviews = [{"id": f"{pid}-r{i}", "initial_rating": r, "confidence": 3, "soundness": 2, "contribution": 2,
                "presentation": 2, "summary": "S.", "strengths": "G.", "weaknesses": "W.", "questions": "Q?"}
               for i, r in enumerate(ratings)]
    return {"paper_id": pid, "arxiv_id": None, "title": pid,
            "markdown": {"content": f"# {pid}\n\nBody.", "metadata": {}}, "reviews": reviews, "scores": {},
            "metadata": {"venue": f"ICLR {year} Poster", "venueid": f"ICLR.cc/{year}/Conference"},
            "meta_review": {"metareview": ""}, "decision": {"decision": decision}}  # fmt: skip


@pytest.fixture
def proreviewer(tmp_path: Path) -> Path:
    train = [row("t1", 2025, "Reject", [1, 3]), row("t2", 2025, "Reject", [3, 5]),
             row("t3", 2025, "Accept (Oral)", [8, 6]), row("t4", 2025, "Accept (Poster)", [6, 6])]
    test = [row("x1", 2026, "Reject", [4, 6]), row("x2", 2026, "Accept (Poster)", [8, 8]),
            row("x3", 2026, "Reject", [2, 2])]  # fmt: skip
    for name, rows in (("train.jsonl", train), ("test.jsonl", test)):
        (tmp_path / name).write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return tmp_path


async def test_acceptance_on_proreviewer(proreviewer: Path) -> None:
    papers = load_papers(proreviewer=proreviewer)
    assert {p.split for p in papers} == {"train", "test"}
    assert {p.venue for p in papers if p.split == "test"} == {"ICLR2026"}
    result, preds = await run_acceptance(papers, predictor="rating")
    # train norms (ICLR2025, 1-10): 1/9, 3/9, 6/9, 5/9 → t = 4/9
    assert result["threshold"] == pytest.approx(4 / 9)
    # test norms (ICLR2026, 0-10): x1 0.5, x2 0.8, x3 0.2 → accept, accept, reject
    assert [p.pred for p in preds] == [True, True, False]
    assert result["overall"]["accuracy"] == pytest.approx(2 / 3)
    assert result["by_venue"]["ICLR2026"]["roc_auc"] == pytest.approx(1.0)


async def test_initial_rating_prediction_on_proreviewer(proreviewer: Path) -> None:
    papers = load_papers(proreviewer=proreviewer)
    result, ts = await run_scores(papers, level="paper", predictor="train-mean")
    # train paper means normalised: (1/9 + 3/9 + 6/9 + 5/9) / 4 = 15/36
    assert result["train_mean_normalised"] == pytest.approx(15 / 36)
    assert all(t.pred_raw == pytest.approx(10 * 15 / 36) for t in ts)
    assert [t.true_raw for t in ts] == [5.0, 8.0, 2.0]
    raw = result["raw_by_venue"]["ICLR2026"]
    errs = [abs(10 * 15 / 36 - y) for y in (5, 8, 2)]
    assert raw["mae"] == pytest.approx(sum(errs) / 3)
    assert raw["within_1"] == pytest.approx(1 / 3)
    assert raw["pearson"] is None  # a constant prediction has no correlation
    review_level, _ = await run_scores(papers, level="review", predictor="train-mean")
    assert review_level["n_test"] == 6


def test_unreadable_inputs_are_left_out_and_named(proreviewer: Path, tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from prism_review.cli import app
    from prism_review.data.layout import demo_root
    from prism_review.guards.errors import DataError

    # ProReviewer: a review with a non-numeric rating is skipped by the reader and now reported
    bad = row("x4", 2026, "Reject", [3])
    bad["reviews"][0]["initial_rating"] = "high"
    with (proreviewer / "test.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(bad) + "\n")
    problems: list[str] = []
    papers = load_papers(proreviewer=proreviewer, problems=problems)
    assert len(papers) == 8 and len(problems) == 1 and "[x4]" in problems[0]

    # a PRISM layout: the paper with a truncated human-review file is left out, not a traceback
    data = tmp_path / "data"
    shutil.copytree(demo_root(), data)
    human = data / "ICLR2024" / "human_reviews" / "0A5o6dCKeK.json"
    human.write_text(human.read_text()[:400])
    with pytest.raises(DataError):
        load_papers(data=data)  # without a problems list the error is raised, as before
    problems = []
    papers = load_papers(data=data, problems=problems)
    assert len(papers) == 20 and "0A5o6dCKeK" not in {p.paper.paper_id for p in papers}
    assert len(problems) == 1 and "0A5o6dCKeK.json: invalid JSON" in problems[0]
    res = CliRunner().invoke(app, ["task", "acceptance", "--data", str(data), "--predictor", "majority"])
    assert res.exit_code == 0, res.output
    assert "1 input problem(s), left out" in res.stderr and "0A5o6dCKeK.json" in res.stderr


async def test_unparseable_llm_predictions_are_unscored_not_zero(proreviewer: Path, llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: "I would rather not answer in JSON.")
    papers = load_papers(proreviewer=proreviewer)
    result, preds = await run_acceptance(papers, predictor="llm", judge=loopback_judge())
    assert result["n_unscored"] == 3 and all(p.pred is None for p in preds)
    assert result["overall"]["n"] == 0 and result["overall"]["accuracy"] is None
    result, ts = await run_scores(papers, level="paper", predictor="llm", judge=loopback_judge())
    assert result["n_unscored"] == 3 and all(t.pred_raw is None for t in ts)
    assert result["normalised"]["n"] == 0 and result["normalised"]["mae"] is None

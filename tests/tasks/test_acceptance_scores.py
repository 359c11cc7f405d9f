"""Acceptance and score-prediction runners on small hand-built papers."""

from __future__ import annotations

import pytest

from prism_review.records import Decision, Paper, Review
from prism_review.tasks.acceptance import (
    AcceptBiasedVenue,
    fit_threshold,
    labelled,
    run_acceptance,
    screen_venues,
)
from prism_review.tasks.scores import denorm, norm, run_scores, targets
from prism_review.tasks.sources import TaskPaper, hash_split


def tp(pid: str, venue: str, decision: str, ratings: list[float], split: str) -> TaskPaper:
    field = "Overall Recommendation" if venue == "ICML2025" else "Rating"
    reviews = [
        Review(paper_id=pid, venue=venue, system="human", reviewer_id=f"Human_{i + 1}", raw_scores={field: r})
        for i, r in enumerate(ratings)
    ]
    paper = Paper(paper_id=pid, venue=venue, full_text="text", decision=Decision.parse(decision))
    return TaskPaper(paper=paper, reviews=reviews, split=split)


def test_fit_threshold_picks_separating_midpoint() -> None:
    assert fit_threshold([0.1, 0.3, 0.5, 0.7], [False, False, True, True]) == pytest.approx(0.4)
    # accept everything when all are accepted: the lowest candidate
    assert fit_threshold([0.2, 0.8], [True, True]) < 0.2


def test_pending_excluded_not_rejected() -> None:
    ps = [tp("a", "ICLR2025", "Accept (poster)", [8], "test"), tp("b", "ICLR2025", "Pending", [3], "test"),
          tp("c", "ICLR2025", "", [3], "test")]
    items, excluded = labelled(ps)
    assert [p.paper.paper_id for p, _ in items] == ["a"]
    assert excluded == {"pending": 1, "unknown": 1}


def test_accept_biased_venues_skipped_or_refused() -> None:
    ps = [tp("a", "ICLR2025", "Reject", [3], "test"), tp("b", "ICML2025", "Accept (poster)", [4], "test")]
    kept, warns = screen_venues(ps, requested=None, allow_biased=False)
    assert [p.venue for p in kept] == ["ICLR2025"] and "ICML2025" in warns[0]
    with pytest.raises(AcceptBiasedVenue):
        screen_venues(ps, requested=["icml2025"], allow_biased=False)
    kept, warns = screen_venues(ps, requested=["ICML2025"], allow_biased=True)
    assert len(kept) == 2 and warns[0].startswith("WARNING")


async def test_rating_baseline_end_to_end() -> None:
    train = [tp("t1", "ICLR2025", "Reject", [1, 3], "train"), tp("t2", "ICLR2025", "Reject", [3, 5], "train"),
             tp("t3", "ICLR2025", "Accept (oral)", [8, 6], "train"), tp("t4", "ICLR2025", "Accept (poster)", [6, 6], "train")]
    test = [tp("x1", "ICLR2025", "Reject", [5, 6], "test"),   # mean norm (4.5/9 + 5/9)/2 = 0.5278
            tp("x2", "ICLR2025", "Accept (poster)", [8, 8], "test"),  # 0.7778
            tp("x3", "ICLR2025", "Reject", [1, 1], "test"),  # 0
            tp("x4", "ICLR2025", "Pending", [10], "test")]
    result, preds = await run_acceptance(train + test, predictor="rating")
    # train mean norm: t1 1/9, t2 3/9, t3 6/9, t4 5/9 → best cut between 3/9 and 5/9 = 4/9
    assert result["threshold"] == pytest.approx(4 / 9)
    assert result["excluded"]["pending"] == 1
    assert [p.pred for p in preds] == [True, True, False]
    o = result["overall"]
    assert o["accuracy"] == pytest.approx(2 / 3)
    assert o["balanced_accuracy"] == pytest.approx((1 + 0.5) / 2)
    assert o["roc_auc"] == pytest.approx(1.0)
    assert o["accept_rate"] == pytest.approx(1 / 3)


def test_hash_split_is_stable() -> None:
    # pinned across processes and versions: sha256("0:paper-1") starts 810ad902 -> 0.50407,
    # sha256("7:paper-1") starts d70a1928 -> 0.84000 (computed by hand with hashlib)
    assert hash_split("paper-1", 0.5, 0) == "test" and hash_split("paper-1", 0.51, 0) == "train"
    assert hash_split("paper-1", 0.6, 0) == "train" and hash_split("paper-1", 0.6, 7) == "test"
    splits = {hash_split(f"p{i}", 0.5) for i in range(50)}
    assert splits == {"train", "test"}
    assert hash_split("p1", 0.0) == "test" and hash_split("p1", 1.0) == "train"


def test_norm_uses_venue_scale() -> None:
    assert norm("ICLR2025", 10) == 1.0 and norm("ICLR2026", 0) == 0.0
    assert denorm("NeurIPS2025", 0.6) == pytest.approx(4.0)


async def test_train_mean_scores_across_venues() -> None:
    train = [tp("t1", "ICLR2025", "Reject", [1], "train"), tp("t2", "ICLR2026", "Reject", [10], "train")]
    test = [tp("x1", "ICLR2025", "Reject", [5, 7], "test"), tp("x2", "ICLR2026", "Reject", [4], "test")]
    result, ts = await run_scores(train + test, level="review", predictor="train-mean")
    # normalised train mean = (0 + 1) / 2 = 0.5 → ICLR2025 5.5, ICLR2026 5.0
    assert result["train_mean_normalised"] == pytest.approx(0.5)
    assert [t.pred_raw for t in ts] == pytest.approx([5.5, 5.5, 5.0])
    raw25 = result["raw_by_venue"]["ICLR2025"]
    assert raw25["mae"] == pytest.approx(1.0) and raw25["within_1"] == pytest.approx(0.5)
    pooled = result["normalised"]
    # normalised errors: |5.5-5|/9, |5.5-7|/9, |5-4|/10
    assert pooled["mae"] == pytest.approx((0.5 / 9 + 1.5 / 9 + 0.1) / 3)
    # within ±1 counts raw points: 0.5, 1.5, 1.0 → 2 of 3
    assert pooled["within_1"] == pytest.approx(2 / 3)
    paper_level, _ = await run_scores(train + test, level="paper", predictor="train-mean")
    assert paper_level["n_test"] == 2


def test_targets_skip_unreadable() -> None:
    p = tp("a", "ICLR2025", "Reject", [], "test")
    p.reviews.append(Review(paper_id="a", venue="ICLR2025", system="human", reviewer_id="H", raw_scores={"Rating": "n/a"}))
    assert targets([p], "review") == [] and targets([p], "paper") == []


async def test_fitted_predictors_refuse_split_all() -> None:
    ps = [tp("t1", "ICLR2025", "Reject", [1], "train"), tp("x1", "ICLR2025", "Reject", [5], "test")]
    with pytest.raises(ValueError, match="fitted on the train split"):
        await run_scores(ps, predictor="train-mean", split="all")
    with pytest.raises(ValueError, match="fitted on the train split"):
        await run_acceptance(ps, predictor="rating", split="all")

"""Prefetching the encoder's runs (issue 12 speed): the next reviews' sentences are encoded on
the encoder's workers while this review is classified and grounded. Values must not move."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.base import OfflineJudge
from prism_review.judge.depth import offline
from prism_review.judge.depth.encoder import load_encoder
from prism_review.records import Paper, Review, Section

TEXTS = [
    "The paper is poorly written.",
    "Table 2 reports 81.3% accuracy on ImageNet, which is below the baseline of [3].",
    "Please add ablations.",
    "Why is the learning rate fixed at 0.1 for all the experiments in Section 4?",
    "Minor: typo in Eq. 3.",
    "The method is novel and the results are convincing, since every ablation in Table 4 agrees.",
]

REVIEWS = [
    "Summary: the paper proposes a sparse attention scheme. The experiments cover three datasets.\n"
    "Weaknesses: the baselines are weak, since [3] is missing. Table 2 lacks variance. "
    "Why is the learning rate fixed?",
    "The writing is clear. However, the claims in Section 3 are not supported by the proofs, "
    "because Lemma 2 assumes bounded gradients. Please add ablations on the window size.",
    "I am not convinced by the novelty. The idea was proposed in prior work on linear "
    "attention. Minor: typo in Eq. 3.",
]


def test_prefetched_vectors_are_the_vectors_and_are_not_run_twice() -> None:
    enc = load_encoder()
    enc.clear_cache()
    plain = np.vstack([enc.vectors([t])[0] for t in TEXTS])
    enc.clear_cache()
    before = enc.runs
    assert enc.prefetch(TEXTS) == len(TEXTS)
    assert enc.prefetch(TEXTS) == 0  # already queued
    got = enc.vectors(TEXTS[::-1])
    assert enc.runs - before == len(TEXTS)  # each text ran once, in the background
    assert np.array_equal(got, plain[::-1])
    enc.clear_cache()


def test_a_call_takes_back_prefetches_that_have_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call never waits behind the backlog: queued-but-not-started texts run with it."""
    from prism_review.judge.depth import encoder as encoder_module

    enc = load_encoder()
    enc.clear_cache()
    plain = enc.vectors(TEXTS)
    enc.clear_cache()
    monkeypatch.setattr(encoder_module, "PREFETCH_IN_FLIGHT", 0)  # nothing handed to the pool
    enc.prefetch(TEXTS)
    assert all(not f.running() and not f.done() for f in enc._pending.values())
    before = enc.runs
    assert np.array_equal(enc.vectors(TEXTS), plain)
    assert enc.runs - before == len(TEXTS) and not enc._pending
    enc.clear_cache()


def test_prefetch_segment_queues_exactly_what_segment_encodes() -> None:
    enc = load_encoder()
    for text in REVIEWS:
        enc.clear_cache()
        runs = enc.runs
        queued = offline.prefetch_segment(text)
        assert queued == len({t for t, _ in offline.review_units(text)}) > 0
        offline.segment(text)
        # segment ran nothing of its own: every sentence it encodes was the prefetched run
        assert enc.runs - runs == queued and not enc._pending
    enc.clear_cache()


def _units() -> tuple[object, list[object]]:
    dim = get_dimension("depth")
    units = []
    for k, text in enumerate(REVIEWS * 2):
        paper = Paper(paper_id=f"p{k}", venue="ICLR2024")
        review = Review(paper_id=f"p{k}", venue="ICLR2024", system="human", reviewer_id="Human_1",
                        sections=[Section(name="Review", text=text + f" Point {k}.")])
        units.extend(dim.work_units(paper, {"human": [review]}, ["human"]))
    return dim, units


def test_depth_rows_are_the_same_with_and_without_prefetching() -> None:
    dim, units = _units()
    enc = load_encoder()

    async def run(prefetch: bool) -> list[dict[str, object]]:
        ctx = RunContext(OfflineJudge())
        if prefetch:
            for u in units:
                dim.prefetch(u, ctx)  # type: ignore[attr-defined]
            assert enc._pending  # the depth dimension did queue the reviews' sentences
        rows = []
        for u in units:
            for r in await dim.evaluate(u, ctx):  # type: ignore[attr-defined]
                rows.append(r.model_dump(include={"metrics", "extracted", "status"}))
        return rows

    enc.clear_cache()
    plain = asyncio.run(run(False))
    enc.clear_cache()
    assert asyncio.run(run(True)) == plain
    enc.clear_cache()


def test_prefetch_and_segment_split_a_review_once() -> None:
    """The runner's prefetch and the unit's segment call split the same review text: the
    second reads the first's units instead of splitting it again."""
    enc = load_encoder()
    text = REVIEWS[0]
    offline.review_units.cache_clear()
    offline.prefetch_segment(text)
    offline.segment(text)
    info = offline.review_units.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    enc.clear_cache()

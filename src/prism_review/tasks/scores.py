"""Review-score prediction: a review's rating, or a paper's mean rating (ProReviewer: the
*initial*, pre-rebuttal rating).

Levels: ``review`` (one target per human review with a readable rating) and ``paper`` (the
mean of the paper's ratings). Predictors:

* ``train-mean`` — the mean normalised rating of the train split, mapped back to each venue's
  raw scale (a floor to beat; it has no correlation by construction);
* ``llm`` — a configured LLM reads the paper (level ``review``: and that review's text, scores
  removed) and answers a rating on the venue's scale (:class:`PredictRating`);
* ``system`` — the ratings a reviewer system wrote (e.g. generated with ``prism review
  generate``), averaged per paper (level ``paper`` only).

Metrics (see :mod:`prism_review.tasks.metrics`) are reported on the raw scale per venue and on
the [0, 1] scale of the venue registry pooled across venues; within-±1 always counts one *raw*
rating point. Evaluation uses the ``test`` split (``split="all"`` for the unfitted predictors).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from prism_review.judge.base import ChatMessage, Judge
from prism_review.judge.fence import fence, with_data_rule
from prism_review.records import Section, render_sections
from prism_review.reviewers.paper_text import DEFAULT_MAX_CHARS, prepare_paper
from prism_review.reviewers.review_step import LLMOnlyStep, require_llm, scale_text
from prism_review.systems.parsing import family
from prism_review.tasks.metrics import regression_metrics
from prism_review.tasks.sources import TaskPaper
from prism_review.venues import get_venue

Level = Literal["review", "paper"]


@dataclass
class Target:
    """One thing to predict: a review's rating or a paper's mean rating (raw scale)."""

    paper_id: str
    venue: str
    split: str | None
    reviewer_id: str | None
    true_raw: float
    pred_raw: float | None = None


def targets(papers: Sequence[TaskPaper], level: Level) -> list[Target]:
    """The prediction targets of ``papers`` at ``level`` (items without a rating are skipped)."""
    out = []
    for p in papers:
        pid, v = p.paper.paper_id, p.venue
        if level == "review":
            out += [Target(pid, v, p.split, rid, raw) for rid, raw, _ in p.ratings()]
        else:
            raw, _ = p.mean_rating()
            if raw is not None:
                out.append(Target(pid, v, p.split, None, raw))
    return out


def norm(venue: str, raw: float) -> float:
    """``raw`` on the venue's rating scale mapped linearly to [0, 1] (not clipped)."""
    s = get_venue(venue).rating_scale
    return (raw - s.low) / (s.high - s.low)


def denorm(venue: str, x: float) -> float:
    """Inverse of :func:`norm`."""
    s = get_venue(venue).rating_scale
    return s.low + x * (s.high - s.low)


def train_mean_predict(train: Sequence[Target], test: Sequence[Target]) -> float:
    """Fill ``pred_raw`` of ``test`` with the train mean (normalised, mapped to each venue's
    scale); returns that normalised mean."""
    if not train:
        raise ValueError("no train paper has a readable human rating to take the mean of (use a "
                         "source whose human reviews carry ratings)")
    m = sum(norm(t.venue, t.true_raw) for t in train) / len(train)
    for t in test:
        t.pred_raw = denorm(t.venue, m)
    return m


def system_rating(raw_scores: Mapping[str, Any]) -> float | None:
    """The overall rating among a review's raw scores (any rating-family field name)."""
    from prism_review.venues import leading_number

    for name, value in raw_scores.items():
        if family(name) == "rating":
            v = leading_number(value)
            if v is not None:
                return v
    return None


def apply_system_ratings(test: Sequence[Target], ratings: Mapping[tuple[str, str], float | None]) -> None:
    """Fill ``pred_raw`` from ``{(venue, paper_id): mean system rating}`` (missing → None)."""
    for t in test:
        t.pred_raw = ratings.get((t.venue, t.paper_id))


class RatingInput(BaseModel):
    """A paper (and, at level ``review``, one review without its scores) to rate."""

    paper_id: str
    venue: str
    title: str = ""
    paper_text: str
    review: str | None = None


class RatingOutput(BaseModel):
    """A predicted rating on the venue's scale."""

    rating: float = Field(description="The predicted rating on the venue's scale")
    rationale: str = ""


_SYSTEM_PAPER = """\
You predict peer-review outcomes for {venue}. Estimate the average initial rating the reviewers \
gave this submission, on the venue's scale: {scale}. Decimal values are allowed for an average.
Answer with one JSON object: {{"rating": number, "rationale": one or two sentences}}."""

_SYSTEM_REVIEW = """\
You predict peer-review scores for {venue}. Read the submission and one reviewer's written \
review, and estimate the overall rating that reviewer gave, on the venue's scale: {scale}.
Answer with one JSON object: {{"rating": number, "rationale": one or two sentences}}."""


class PredictRating(LLMOnlyStep[RatingInput, RatingOutput]):
    """Predict a rating on the venue's scale (paper-level mean, or one review's rating)."""

    name: ClassVar[str] = "task.rating"
    Input = RatingInput
    Output = RatingOutput

    def messages(self, inp: RatingInput) -> list[ChatMessage]:
        v = get_venue(inp.venue)
        tmpl = _SYSTEM_REVIEW if inp.review is not None else _SYSTEM_PAPER
        system = tmpl.format(venue=v.hf_folder.replace("_", " "), scale=scale_text(v))
        user = f"Title:\n{fence('TITLE', inp.title or '(untitled)')}\n\n{fence('PAPER', inp.paper_text)}"
        if inp.review is not None:
            user += f"\n\n{fence('REVIEW', inp.review)}"
        return [ChatMessage(role="system", content=with_data_rule(system)), ChatMessage(role="user", content=user)]

    def check(self, inp: RatingInput, out: RatingOutput) -> str | None:
        s = get_venue(inp.venue).rating_scale
        if not s.low <= out.rating <= s.high:
            return f"the rating {out.rating:g} is outside the scale {s.low:g}-{s.high:g}"
        return None

    def max_tokens(self, inp: RatingInput) -> int | None:
        return 512


def review_without_scores(sections: Sequence[Section]) -> str:
    """A review's text with its score sections removed (so the answer is not in the input)."""
    keep = [s for s in sections if family(s.name) not in {"rating", "confidence", "soundness",
                                                           "presentation", "contribution", "decision"}]  # fmt: skip
    return render_sections(keep)


async def llm_predict(test: Sequence[Target], papers: Mapping[tuple[str, str], TaskPaper],
                      judge: Judge, *, max_paper_chars: int | None = DEFAULT_MAX_CHARS,
                      concurrency: int = 4) -> None:  # fmt: skip
    """Fill ``pred_raw`` of ``test`` with the LLM's ratings (None when unscored or out of scale)."""
    require_llm(judge, "score prediction with an LLM")
    step, sem = PredictRating(), asyncio.Semaphore(max(1, concurrency))

    async def one(t: Target) -> None:
        p = papers[(t.venue, t.paper_id)]
        review = None
        if t.reviewer_id is not None:
            rv = next(r for r in p.reviews if r.reviewer_id == t.reviewer_id)
            review = review_without_scores(rv.sections)
        inp = RatingInput(paper_id=t.paper_id, venue=t.venue, title=p.paper.title,
                          paper_text=prepare_paper(p.paper.full_text, max_paper_chars), review=review)  # fmt: skip
        async with sem:
            res = await judge.run(step, inp)
        s = get_venue(t.venue).rating_scale
        ok = res.ok and res.output is not None and s.low <= res.output.rating <= s.high
        t.pred_raw = res.output.rating if ok and res.output is not None else None

    await asyncio.gather(*(one(t) for t in test))


def score_targets(test: Sequence[Target]) -> dict[str, Any]:
    """Raw-scale metrics per venue and [0, 1]-scale metrics pooled; abstentions counted."""
    done = [t for t in test if t.pred_raw is not None]
    by_venue = {}
    for v in sorted({t.venue for t in done}):
        ts = [t for t in done if t.venue == v]
        by_venue[v] = regression_metrics([t.true_raw for t in ts], [float(t.pred_raw or 0) for t in ts])
    pooled = regression_metrics(
        [norm(t.venue, t.true_raw) for t in done],
        [norm(t.venue, float(t.pred_raw or 0)) for t in done],
        errors_for_within=[abs(float(t.pred_raw or 0) - t.true_raw) for t in done],
    )
    return {"raw_by_venue": by_venue, "normalised": pooled, "n_unscored": len(test) - len(done)}


async def run_scores(
    papers: list[TaskPaper], *, level: Level = "paper",
    predictor: Literal["train-mean", "llm", "system"] = "train-mean", judge: Judge | None = None,
    system_ratings: Mapping[tuple[str, str], float | None] | None = None,
    max_paper_chars: int | None = DEFAULT_MAX_CHARS, concurrency: int = 4,
    split: Literal["test", "all"] = "test",
) -> tuple[dict[str, Any], list[Target]]:  # fmt: skip
    """Run one predictor at one level; returns ``(result, evaluated targets with predictions)``.

    ``split="all"`` evaluates every target and is refused for ``train-mean`` (fitted on train).
    """
    if split == "all" and predictor == "train-mean":
        raise ValueError("the train-mean predictor is fitted on the train split: evaluate it on 'test'")
    all_t = targets(papers, level)
    train = [t for t in all_t if t.split == "train"]
    test = [t for t in all_t if split == "all" or t.split == "test"]
    if not test:
        raise ValueError("no test targets with a readable rating")
    result: dict[str, Any] = {"task": "scores", "level": level, "predictor": predictor, "split": split,
                              "n_train": len(train), "n_test": len(test)}  # fmt: skip
    if predictor == "train-mean":
        result["train_mean_normalised"] = train_mean_predict(train, test)
    elif predictor == "llm":
        if judge is None:
            raise ValueError("the llm predictor needs a judge")
        index = {(p.venue, p.paper.paper_id): p for p in papers}
        await llm_predict(test, index, judge, max_paper_chars=max_paper_chars, concurrency=concurrency)
        result["judge"] = judge.describe()
    elif predictor == "system":
        if level != "paper" or system_ratings is None:
            raise ValueError("the system predictor needs level 'paper' and the system's ratings")
        apply_system_ratings(test, system_ratings)
    else:
        raise ValueError(f"unknown predictor {predictor!r}")
    result.update(score_targets(test))
    return result, test


def targets_as_rows(ts: Sequence[Target]) -> list[dict[str, Any]]:
    """Targets as JSON-able rows."""
    return [asdict(t) for t in ts]

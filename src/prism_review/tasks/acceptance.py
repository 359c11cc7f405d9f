"""Acceptance prediction: does a paper get accepted?

Predictors:

* ``rating`` — the mean normalised human rating, thresholded; the threshold is fitted on the
  train split (the candidate midpoint between sorted train scores maximising the train
  objective, balanced accuracy by default); its ROC-AUC score is the mean rating itself;
* ``majority`` — always the train split's majority class (a floor to beat);
* ``llm`` — a configured LLM reads the paper (and, optionally, its reviews) and answers
  accept/reject with a probability (:class:`PredictAcceptance`);
* ``file`` — predictions made elsewhere, e.g. the meta-reviews of ``prism review meta``: JSONL
  rows ``{paper_id, venue?, recommendation | decision, confidence | probability?}``.

Papers whose decision is Pending or unknown are excluded (and counted), never treated as
rejections. ICML 2025 and NeurIPS 2025 hold almost only accepted papers (``Venue.accept_biased``):
they are left out with a warning unless ``allow_biased`` is set, and asking for them explicitly
without it raises :class:`AcceptBiasedVenue`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, field_validator

from prism_review.judge.base import ChatMessage, Judge
from prism_review.judge.fence import fence, with_data_rule
from prism_review.reviewers.generate import review_texts
from prism_review.reviewers.paper_text import DEFAULT_MAX_CHARS, prepare_paper
from prism_review.reviewers.review_step import LLMOnlyStep, require_llm
from prism_review.tasks.metrics import classification_metrics
from prism_review.tasks.sources import TaskPaper
from prism_review.venues import get_venue


class AcceptBiasedVenue(ValueError):
    """An accept-biased venue was asked for without ``allow_biased``."""


@dataclass
class Prediction:
    """One paper's gold label and predicted label/score (None when the predictor abstained)."""

    paper_id: str
    venue: str
    split: str | None
    label: bool
    pred: bool | None
    score: float | None = None


def biased_venues(venues: Sequence[str]) -> list[str]:
    """The accept-biased venues among ``venues`` (canonical ids)."""
    return [get_venue(v).id for v in venues if get_venue(v).accept_biased]


def screen_venues(papers: list[TaskPaper], *, requested: Sequence[str] | None,
                  allow_biased: bool) -> tuple[list[TaskPaper], list[str]]:  # fmt: skip
    """Apply the accept-bias rule; returns the papers kept and the warnings to show."""
    present = sorted({p.venue for p in papers})
    biased = biased_venues(present)
    if not biased:
        return papers, []
    asked = set(biased_venues(requested or []))
    note = (
        f"{', '.join(biased)}: the corpus holds almost only accepted papers (collection bias); "
        "acceptance metrics there measure the collection, not the predictor"
    )
    if allow_biased:
        return papers, [f"WARNING {note}. Included because allow_biased was set."]
    if asked:
        raise AcceptBiasedVenue(f"refusing acceptance prediction on {note}. Pass --allow-biased to run anyway.")
    kept = [p for p in papers if p.venue not in biased]
    return kept, [f"skipped {note}. Pass --allow-biased to include them."]


def labelled(papers: Sequence[TaskPaper]) -> tuple[list[tuple[TaskPaper, bool]], dict[str, int]]:
    """Papers with a final accept/reject decision, and counts of those excluded by kind."""
    out, excluded = [], {"pending": 0, "unknown": 0}
    for p in papers:
        acc = p.paper.decision.accepted
        if acc is None:
            excluded["pending" if p.paper.decision.kind.value == "pending" else "unknown"] += 1
        else:
            out.append((p, acc))
    return out, excluded


def fit_threshold(scores: Sequence[float], labels: Sequence[bool],
                  objective: Literal["accuracy", "balanced_accuracy"] = "balanced_accuracy") -> float:  # fmt: skip
    """The threshold t (predict accept when score ≥ t) maximising ``objective`` on the data.

    Candidates are the midpoints between consecutive distinct scores plus one value below and
    one above all scores; ties go to the smallest candidate.
    """
    if not scores:
        raise ValueError("cannot fit a threshold on no data")
    xs = sorted(set(scores))
    cands = [xs[0] - 1.0] + [(a + b) / 2 for a, b in zip(xs, xs[1:], strict=False)] + [xs[-1] + 1.0]
    best_t, best_v = cands[0], -1.0
    for t in cands:
        m = classification_metrics(labels, [s >= t for s in scores])
        v = m[objective] if m[objective] is not None else -1.0
        if v > best_v + 1e-12:
            best_t, best_v = t, v
    return best_t


def rating_baseline(train: Sequence[tuple[TaskPaper, bool]], test: Sequence[tuple[TaskPaper, bool]],
                    objective: Literal["accuracy", "balanced_accuracy"] = "balanced_accuracy",
                    ) -> tuple[float, list[Prediction], int]:  # fmt: skip
    """Fit the mean-rating threshold on ``train``; predict ``test``.

    Returns ``(threshold, predictions, n_test_without_ratings)``; papers without a readable
    rating are left out of the predictions (they are counted).
    """
    tr = [(p.mean_rating()[1], y) for p, y in train]
    tr_ok = [(s, y) for s, y in tr if s is not None]
    t = fit_threshold([s for s, _ in tr_ok], [y for _, y in tr_ok], objective)
    preds, missing = [], 0
    for p, y in test:
        s = p.mean_rating()[1]
        if s is None:
            missing += 1
            continue
        preds.append(Prediction(p.paper.paper_id, p.venue, p.split, y, s >= t, s))
    return t, preds, missing


def majority_baseline(train: Sequence[tuple[TaskPaper, bool]],
                      test: Sequence[tuple[TaskPaper, bool]]) -> tuple[bool, list[Prediction]]:  # fmt: skip
    """Predict the train split's majority class for every test paper (ties → reject)."""
    n_acc = sum(1 for _, y in train if y)
    major = n_acc > len(train) - n_acc
    return major, [Prediction(p.paper.paper_id, p.venue, p.split, y, major, None) for p, y in test]


class AcceptanceInput(BaseModel):
    """A paper (and optionally its reviews) for the LLM predictor."""

    paper_id: str
    venue: str
    title: str = ""
    paper_text: str
    reviews: list[str] = Field(default_factory=list)


class AcceptanceOutput(BaseModel):
    """The LLM's decision and its probability of acceptance."""

    decision: Literal["accept", "reject"]
    probability: float = Field(description="Probability of acceptance, 0 to 1")
    rationale: str = ""

    @field_validator("decision", mode="before")
    @classmethod
    def _lower(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v


_SYSTEM = """\
You are a senior area chair at {venue}. Given a submission{with_reviews}, predict whether the \
programme committee accepted it. Historically about {rate} of decided submissions to this venue \
were accepted. Judge the paper on its merits: soundness, significance, novelty and clarity.

Answer with one JSON object: {{"decision": "accept" or "reject", "probability": the probability \
of acceptance from 0 to 1, "rationale": two or three sentences}}."""

#: dataset-card accept rates (accepted / decided) used as the prior in the prompt
_ACCEPT_RATES = {"ICLR2024": "39%", "ICLR2025": "42%", "ICLR2026": "38%"}


class PredictAcceptance(LLMOnlyStep[AcceptanceInput, AcceptanceOutput]):
    """Predict accept/reject for one paper."""

    name: ClassVar[str] = "task.acceptance"
    Input = AcceptanceInput
    Output = AcceptanceOutput

    def messages(self, inp: AcceptanceInput) -> list[ChatMessage]:
        vid = get_venue(inp.venue).id
        system = _SYSTEM.format(
            venue=get_venue(vid).hf_folder.replace("_", " "),
            with_reviews=" and its reviews" if inp.reviews else "",
            rate=_ACCEPT_RATES.get(vid, "an unknown share"),
        )
        parts = [f"Title:\n{fence('TITLE', inp.title or '(untitled)')}", fence("PAPER", inp.paper_text)]
        parts += [f"=== Review {i} ===\n{fence('REVIEW', t)}" for i, t in enumerate(inp.reviews, 1)]
        return [ChatMessage(role="system", content=with_data_rule(system)),
                ChatMessage(role="user", content="\n\n".join(parts))]

    def finalize(self, inp: AcceptanceInput, out: AcceptanceOutput) -> AcceptanceOutput:
        return out.model_copy(update={"probability": min(1.0, max(0.0, out.probability))})

    def max_tokens(self, inp: AcceptanceInput) -> int | None:
        return 1024


async def llm_predictions(test: Sequence[tuple[TaskPaper, bool]], judge: Judge, *,
                          with_reviews: bool = False, max_paper_chars: int | None = DEFAULT_MAX_CHARS,
                          concurrency: int = 4) -> list[Prediction]:  # fmt: skip
    """The LLM predictor on ``test``; an unscored reply gives ``pred=None`` (counted, not guessed)."""
    require_llm(judge, "acceptance prediction with an LLM")
    step, sem = PredictAcceptance(), asyncio.Semaphore(max(1, concurrency))

    async def one(p: TaskPaper, y: bool) -> Prediction:
        inp = AcceptanceInput(
            paper_id=p.paper.paper_id, venue=p.venue, title=p.paper.title,
            paper_text=prepare_paper(p.paper.full_text, max_paper_chars),
            reviews=review_texts(p.reviews) if with_reviews else [],
        )  # fmt: skip
        async with sem:
            res = await judge.run(step, inp)
        out = res.output if res.ok else None
        return Prediction(p.paper.paper_id, p.venue, p.split, y,
                          None if out is None else out.decision == "accept",
                          None if out is None else out.probability)  # fmt: skip

    return list(await asyncio.gather(*(one(p, y) for p, y in test)))


def file_predictions(test: Sequence[tuple[TaskPaper, bool]],
                     rows: Sequence[dict[str, Any]]) -> list[Prediction]:  # fmt: skip
    """Predictions read from rows keyed by ``paper_id`` (and ``venue`` when given).

    ``recommendation``/``decision`` is read with :class:`~prism_review.records.Decision` (accept
    classes → accept, reject → reject, anything else → no prediction); ``confidence`` or
    ``probability`` is the ROC-AUC score when present.
    """
    from prism_review.records import Decision

    by_key: dict[tuple[str | None, str], dict[str, Any]] = {}
    for r in rows:
        if r.get("paper_id") is not None:
            venue = get_venue(str(r["venue"])).id if r.get("venue") else None
            by_key[(venue, str(r["paper_id"]))] = r
    out = []
    for p, y in test:
        hit = by_key.get((p.venue, p.paper.paper_id)) or by_key.get((None, p.paper.paper_id))
        pred, score = None, None
        if hit is not None:
            pred = Decision.parse(hit.get("recommendation", hit.get("decision"))).accepted
            raw = hit.get("confidence", hit.get("probability"))
            score = float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None
        out.append(Prediction(p.paper.paper_id, p.venue, p.split, y, pred, score if pred is not None else None))
    return out


def score_predictions(preds: Sequence[Prediction]) -> dict[str, Any]:
    """Overall and per-venue metrics over the predictions that have a label (abstentions counted)."""
    answered = [p for p in preds if p.pred is not None]

    def block(ps: Sequence[Prediction]) -> dict[str, Any]:
        scores = [p.score for p in ps]
        return classification_metrics([p.label for p in ps], [bool(p.pred) for p in ps],
                                      scores if all(s is not None for s in scores) else None)  # fmt: skip

    venues = sorted({p.venue for p in answered})
    return {
        "overall": block(answered),
        "by_venue": {v: block([p for p in answered if p.venue == v]) for v in venues},
        "n_unscored": len(preds) - len(answered),
    }


def predictions_as_rows(preds: Sequence[Prediction]) -> list[dict[str, Any]]:
    """Predictions as JSON-able rows."""
    return [asdict(p) for p in preds]


async def run_acceptance(
    papers: list[TaskPaper], *, predictor: Literal["rating", "majority", "llm", "file"] = "rating",
    judge: Judge | None = None, requested_venues: Sequence[str] | None = None,
    prediction_rows: Sequence[dict[str, Any]] | None = None,
    allow_biased: bool = False, with_reviews: bool = False,
    objective: Literal["accuracy", "balanced_accuracy"] = "balanced_accuracy",
    max_paper_chars: int | None = DEFAULT_MAX_CHARS, concurrency: int = 4,
    split: Literal["test", "all"] = "test",
) -> tuple[dict[str, Any], list[Prediction]]:  # fmt: skip
    """Run one predictor; returns ``(result, predictions)``.

    Evaluation is on the ``test`` split; ``split="all"`` evaluates every labelled paper and is
    allowed only for the ``llm`` and ``file`` predictors (the baselines are fitted on train).
    """
    if split == "all" and predictor not in ("llm", "file"):
        raise ValueError(f"the {predictor} predictor is fitted on the train split: evaluate it on 'test'")
    papers, warnings = screen_venues(papers, requested=requested_venues, allow_biased=allow_biased)
    items, excluded = labelled(papers)
    train = [(p, y) for p, y in items if p.split == "train"]
    test = [(p, y) for p, y in items if split == "all" or p.split == "test"]
    result: dict[str, Any] = {"task": "acceptance", "predictor": predictor, "warnings": warnings,
                              "excluded": dict(excluded), "split": split, "n_train": len(train),
                              "n_test": len(test)}  # fmt: skip
    if not test:
        raise ValueError("no labelled test papers (check the split and the decisions)")
    if predictor == "rating":
        if not any(p.mean_rating()[1] is not None for p, _ in train):
            raise ValueError(f"none of the {len(train)} labelled train papers has a readable human "
                             "rating to fit the threshold on (use a source whose human reviews "
                             "carry ratings, or --predictor majority, which needs none)")
        t, preds, missing = rating_baseline(train, test, objective)
        result.update(threshold=t, objective=objective)
        result["excluded"]["no_ratings"] = missing
    elif predictor == "majority":
        if not train:
            raise ValueError("no labelled train papers to take the majority class from")
        major, preds = majority_baseline(train, test)
        result["majority_class"] = "accept" if major else "reject"
    elif predictor == "llm":
        if judge is None:
            raise ValueError("the llm predictor needs a judge")
        preds = await llm_predictions(test, judge, with_reviews=with_reviews,
                                      max_paper_chars=max_paper_chars, concurrency=concurrency)  # fmt: skip
        result.update(judge=judge.describe(), with_reviews=with_reviews)
    elif predictor == "file":
        if prediction_rows is None:
            raise ValueError("the file predictor needs prediction rows")
        preds = file_predictions(test, prediction_rows)
    else:
        raise ValueError(f"unknown predictor {predictor!r}")
    result.update(score_predictions(preds))
    return result, preds

"""Injected-error detection on the OpenAIReview perturbation benchmark, as its card defines it.

Input: the benchmark rows (:mod:`prism_review.data.perturbation`) and a review system's
quote-anchored comments, JSONL rows ``{"id": "<arxiv_id>__<error_type>", "comments": [...]}``
(or ``arxiv_id`` + ``error_type`` instead of ``id``), e.g. written by ``prism review comments``.

What is scored (the hub card): only edits inside ``review_input``, the first 13,000
``cl100k_base`` tokens a review system is shown (``Perturbation.scored``: the data's value, else
computed by the reader); a row with fewer than :data:`MIN_SCORED_EDITS` scored edits is left out
of the benchmark and counted (``n_rows_too_few_scored``).

The rule for one scored edit (matching in :mod:`prism_review.metrics.perturbation`) depends on
``method``, and each method's figure has its own name, so an offline figure is never shown as
the card's recall:

- ``llm`` → ``recall``: some comment quotes the edit (the normalised perturbed text is inside
  the quote, or the quote covers ≥ 75% of it) **and** an LLM judge rates its explanation against
  ``why_wrong`` at least 4 of 5 (the card; the public scorer code used 3; ``judge_threshold``).
  An edit that only unscored ratings could have detected is unscored (``n_unscored``) and left
  out of the figure, never counted as missed.
- ``location`` → ``location_recall`` (no judge): the quote condition alone. It is an **upper
  bound** of ``recall``: every detection needs it.
- ``fuzzy`` → ``fuzzy_recall``: the quote condition and rapidfuzz ``token_set_ratio`` ≥ 70
  between the explanation and ``why_wrong``, the public scorer's offline alternative; not the
  card's rule (paraphrases rarely pass, so it is far below ``recall``).

Rows without a comments entry are left out and counted (``missing="skip"``, the default: a
system that has not run yet is not a system that found nothing) or scored as 0
(``missing="zero"``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from prism_review import progress
from prism_review.data.jsonl import iter_jsonl
from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError
from prism_review.judge.base import ChatMessage, Judge
from prism_review.judge.fence import fence, with_data_rule
from prism_review.metrics.perturbation import (
    FUZZY_RATIO,
    JUDGE_THRESHOLD,
    QUOTE_COVERAGE,
    normalize_for_match,
    normalized_match,
    recall_by_category,
    row_recall,
    score_review,
)
from prism_review.reviewers.review_step import GenerationNeedsLLM, LLMOnlyStep, require_llm

#: the hub card leaves rows with fewer scored edits out of the benchmark
MIN_SCORED_EDITS = 5
METHODS = ("llm", "location", "fuzzy")
#: the name of each method's figure: only the card's rule (llm) measures "recall"
FIGURE = {"llm": "recall", "location": "location_recall", "fuzzy": "fuzzy_recall"}


class _Quotes:
    """A row's comments with their quotes normalised once."""

    def __init__(self, comments: Sequence[Mapping[str, Any]]) -> None:
        self.comments = list(comments)
        self.norm = [normalize_for_match(c.get("quote") or "") for c in self.comments]

    def matching(self, perturbed: str) -> list[Mapping[str, Any]]:
        """The comments whose quote covers ``perturbed`` (the location condition), in order."""
        p = normalize_for_match(perturbed)
        return [c for c, q in zip(self.comments, self.norm, strict=True) if normalized_match(q, p)]


def row_key(entry: Mapping[str, Any]) -> str | None:
    """The row id of a comments entry: ``id``, else ``<arxiv_id>__<error_type>``."""
    if entry.get("id"):
        return str(entry["id"])
    if entry.get("arxiv_id") and entry.get("error_type"):
        return f"{entry['arxiv_id']}__{entry['error_type']}"
    return None


def load_comments(
    path: Path, skips: SkipLog | None = None
) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """``({row id: comments}, n_merged)``; several entries for one row are concatenated.

    A line that is not a JSON object (e.g. the torn last line of a killed ``prism review
    comments`` run) is skipped and recorded in ``skips`` with its line number, so the caller can
    say that rows were lost; an entry with the wrong shape raises :class:`DataError`.
    """
    out: dict[str, list[dict[str, Any]]] = {}
    merged = 0
    if not path.is_file():
        raise DataError(path, "no such file")
    for i, entry in iter_jsonl(path, skips if skips is not None else SkipLog()):
        key = row_key(entry)
        comments = entry.get("comments")
        if key is None:
            raise DataError(path, "entry has neither id nor arxiv_id + error_type", field=f"line {i}")
        if not isinstance(comments, list) or not all(isinstance(c, dict) for c in comments):
            raise DataError(path, "comments must be a list of objects", field=f"line {i}: comments")
        if key in out:
            merged += 1
        out.setdefault(key, []).extend(comments)
    return out, merged


class ExplanationInput(BaseModel):
    """A reviewer's explanation next to the known reason the edit is an error."""

    perturbed: str
    why_wrong: str
    explanation: str


class ExplanationRating(BaseModel):
    """How well the explanation identifies the known error, 1 (not at all) to 5 (exactly)."""

    score: int = Field(description="1 to 5")
    reason: str = ""


_SYSTEM = """\
You grade whether a reviewer identified a known, deliberately injected error in a paper. You get \
the injected text, the reference explanation of why it is wrong, and the reviewer's explanation \
of a comment that quotes that text. Rate how well the reviewer's explanation identifies the same \
problem:
5 = the same error, for the same reason; 4 = the same error, reason partly stated or less precise;
3 = notices something is wrong with this text but the reason differs or is vague;
2 = comments on the text but about a different issue; 1 = unrelated, or says the text is fine.
Answer with one JSON object: {"score": 1-5, "reason": one sentence}."""


class RateExplanation(LLMOnlyStep[ExplanationInput, ExplanationRating]):
    """LLM judge for the explanation-match half of the perturbation scoring rule."""

    name: ClassVar[str] = "task.perturbation.explanation"
    Input = ExplanationInput
    Output = ExplanationRating

    def messages(self, inp: ExplanationInput) -> list[ChatMessage]:
        user = (f"Injected text:\n{fence('INJECTED', inp.perturbed)}\n\nReference explanation:\n"
                f"{fence('REFERENCE', inp.why_wrong)}\n\nReviewer's explanation:\n"
                f"{fence('EXPLANATION', inp.explanation)}")  # fmt: skip
        return [ChatMessage(role="system", content=with_data_rule(_SYSTEM)), ChatMessage(role="user", content=user)]

    def offline(self, inp: ExplanationInput) -> ExplanationRating:
        raise GenerationNeedsLLM(self.name + " (use method 'fuzzy' offline)")

    def check(self, inp: ExplanationInput, out: ExplanationRating) -> str | None:
        return None if 1 <= out.score <= 5 else f"score {out.score} is not between 1 and 5"

    def max_tokens(self, inp: ExplanationInput) -> int | None:
        return 256


async def llm_ratings(rows: Sequence[Any], comments: Mapping[str, list[dict[str, Any]]],
                      judge: Judge, concurrency: int = 8) -> dict[tuple[str, str], int | None]:  # fmt: skip
    """Ratings for every (explanation, why_wrong) pair of a scored edit whose quote matches;
    None = unscored. Only these pairs can decide a detection, so only they are sent."""
    require_llm(judge, "the LLM explanation match")
    todo: dict[tuple[str, str], ExplanationInput] = {}
    for row in rows:
        quotes = _Quotes(comments.get(row.id, []))
        for p in row.scored_perturbations:
            for c in quotes.matching(p.perturbed):
                expl = c.get("explanation") or ""
                todo.setdefault((expl, p.why_wrong), ExplanationInput(
                    perturbed=p.perturbed, why_wrong=p.why_wrong, explanation=expl))  # fmt: skip
    step, sem = RateExplanation(), asyncio.Semaphore(max(1, concurrency))

    async def one(key: tuple[str, str], inp: ExplanationInput) -> tuple[tuple[str, str], int | None]:
        async with sem:
            res = await judge.run(step, inp)
        # a rating still outside 1-5 after the check's re-ask is unscored by the judge itself
        return key, (res.output.score if res.ok and res.output is not None else None)

    return dict(await progress.gather((one(k, v) for k, v in todo.items()), "judge calls"))


def score_row(perturbations: Sequence[Any], comments: Sequence[Mapping[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """:func:`~prism_review.metrics.perturbation.score_review` for one row, each edit checked
    against the comments whose quote matches it (same result, each quote normalised once)."""
    quotes = _Quotes(comments)
    detected: list[Any] = []
    missed: list[Any] = []
    unscored: list[Any] = []
    for p in perturbations:
        res = score_review([p], quotes.matching(p.perturbed), **kwargs)
        (detected if res["n_detected"] else unscored if res["n_unscored"] else missed).append(p.perturbation_id)
    n = len(perturbations)
    method = kwargs.get("method", "fuzzy")
    return {
        "n_injected": n, "n_detected": len(detected), "n_unscored": len(unscored),
        "recall": row_recall(n, len(detected), len(unscored)), "n_total_comments": len(comments),
        "detected": detected, "missed": missed, "unscored": unscored, "method": method,
        "threshold": None if method == "location" else kwargs.get("fuzzy_threshold", FUZZY_RATIO)
        if method == "fuzzy" else kwargs.get("judge_threshold", JUDGE_THRESHOLD),
    }  # fmt: skip


def _named(obj: Any, figure: str) -> Any:
    """The result with its figure under the method's name and ``n_injected`` as ``n_scored``."""
    ren = {"n_injected": "n_scored", "recall": figure, "mean_row_recall": f"mean_row_{figure}"}
    if isinstance(obj, dict):
        return {ren.get(k, k): _named(v, figure) for k, v in obj.items()}
    return obj


async def score_perturbations(
    rows: Sequence[Any], comments: Mapping[str, list[dict[str, Any]]], *,
    method: Literal["llm", "location", "fuzzy"] = "location", judge: Judge | None = None,
    judge_threshold: float = JUDGE_THRESHOLD, fuzzy_threshold: float = FUZZY_RATIO,
    missing: Literal["skip", "zero"] = "skip", concurrency: int = 8,
    min_scored: int = MIN_SCORED_EDITS,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:  # fmt: skip
    """Score every benchmark row; returns ``(summary, per-row results)``."""
    if method not in METHODS:
        from prism_review.names import closest_first

        raise ValueError(f"unknown method {method!r}; one of (closest first) "
                         f"{', '.join(closest_first(method, METHODS))}")
    figure = FIGURE[method]
    few = [r for r in rows if len(r.scored_perturbations) < min_scored]
    bench = [r for r in rows if len(r.scored_perturbations) >= min_scored]
    ratings: dict[tuple[str, str], int | None] = {}
    if method == "llm":
        if judge is None:
            raise ValueError("method 'llm' needs a judge")
        ratings = await llm_ratings([r for r in bench if r.id in comments], comments, judge, concurrency)
    per_row: list[dict[str, Any]] = []
    n_missing = 0
    subtype: dict[str, list[int]] = {}
    for row in progress.iterate(bench, "perturbation rows"):
        if row.id not in comments and missing == "skip":
            n_missing += 1
            continue
        n_missing += row.id not in comments
        scored = row.scored_perturbations
        res = score_row(scored, comments.get(row.id, []), method=method,
                        judge=(lambda e, w: ratings.get((e, w))) if method == "llm" else None,
                        judge_threshold=judge_threshold, fuzzy_threshold=fuzzy_threshold)  # fmt: skip
        hit, unsure = set(res["detected"]), set(res["unscored"])
        for p in scored:
            acc = subtype.setdefault(p.error_subtype or "unknown", [0, 0, 0])
            acc[0] += 1
            acc[1] += p.perturbation_id in hit
            acc[2] += p.perturbation_id in unsure
        per_row.append({"id": row.id, "arxiv_id": row.arxiv_id, "error_type": row.error_type,
                        "error_category": row.error_category, "has_comments": row.id in comments,
                        "n_edits": len(row.perturbations), **res})  # fmt: skip
    n_inj = sum(r["n_injected"] for r in per_row)
    n_det = sum(r["n_detected"] for r in per_row)
    n_uns = sum(r["n_unscored"] for r in per_row)
    row_recalls = [r["recall"] for r in per_row if r["recall"] is not None]
    summary: dict[str, Any] = {
        "task": "perturbation",
        "method": method,
        "figure": figure,
        "upper_bound_of": "recall" if method == "location" else None,
        "threshold": {"llm": judge_threshold, "fuzzy": fuzzy_threshold}.get(method),
        "quote_coverage": QUOTE_COVERAGE,
        "missing": missing,
        "min_scored_edits": min_scored,
        "n_rows": len(per_row),
        "n_rows_too_few_scored": len(few),
        "rows_too_few_scored": [r.id for r in few],
        "n_rows_missing_comments": n_missing,
        "n_rows_text_withheld": sum(1 for r in rows if r.text_withheld),
        "n_edits_outside_review_input": sum(1 for r in bench for p in r.perturbations if p.scored is False),
        "n_edits_window_unknown": sum(r.n_unknown_window for r in rows),
        "overall": {
            "n_injected": n_inj, "n_detected": n_det, "n_unscored": n_uns,
            "recall": n_det / (n_inj - n_uns) if n_inj - n_uns else None,
            "mean_row_recall": sum(row_recalls) / len(row_recalls) if row_recalls else None,
        },  # fmt: skip
        "by_category": recall_by_category(per_row),
        "by_subtype": {k: {"n_injected": v[0], "n_detected": v[1], "n_unscored": v[2],
                           "recall": v[1] / (v[0] - v[2]) if v[0] - v[2] else None}
                       for k, v in sorted(subtype.items())},  # fmt: skip
    }
    if method == "llm":
        vals = list(ratings.values())
        summary["judge"] = judge.describe() if judge is not None else None
        summary["n_judge_calls"] = len(vals)
        summary["n_judge_unscored"] = sum(1 for v in vals if v is None)
    return _named(summary, figure), [_named(r, figure) for r in per_row]

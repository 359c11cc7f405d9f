"""Run the generation steps over papers and write resumable JSONL outputs.

* :func:`generate_reviews` — one review per paper of a venue, written through the system's
  generation hooks (a bring-your-own system: ``DATA_ROOT/<VENUE>/<system>/reviews.jsonl``) so
  ``prism evaluate --system <system>`` evaluates them;
* :func:`generate_comments` — OpenAIReview-style quote-anchored comments for perturbation rows,
  ``{id, arxiv_id, error_type, comments}`` per row (input of ``prism perturbation score``);
* :func:`generate_meta_reviews` — a meta-review per paper from one system's reviews.

Each writes one row per finished item, skips items already in its output (resume), and reports
what it wrote, skipped and failed. A step that stays unparseable after the LLM layer's re-ask is a
failure listed in the report (and retried on the next run), never an empty review.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError
from prism_review.judge.base import Judge, StepResult, Usage
from prism_review.llm.errors import FatalProviderError, ProviderError
from prism_review.names import reserved_name_problem
from prism_review.records import Review, render_sections
from prism_review.reviewers.comment_step import CommentInput, QuoteComments
from prism_review.reviewers.meta_step import GenerateMetaReview, MetaInput
from prism_review.reviewers.output import JsonlAppender
from prism_review.reviewers.paper_text import DEFAULT_MAX_CHARS, cut_at_references, fit_budget
from prism_review.reviewers.review_step import GenerateReview, ReviewInput, require_llm, snap_rating
from prism_review.systems.byo import byo_spec
from prism_review.systems.registry import RESERVED_FOLDERS, get_system
from prism_review.systems.spec import GenerationHooks, SystemSpec
from prism_review.venues import get_venue


@dataclass
class GenerationReport:
    """What a generation run did."""

    path: Path
    total: int = 0
    written: int = 0
    skipped: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able summary."""
        return {
            "path": str(self.path), "total": self.total, "written": self.written,
            "skipped_existing": self.skipped, "failed": len(self.failed),
            "usage": self.usage.model_dump(),
        }  # fmt: skip


Work = Callable[[str], Awaitable[tuple[dict[str, Any] | None, StepResult[Any] | None, str | None]]]


async def _drive(keys: Sequence[str], work: Work, out: JsonlAppender, report: GenerationReport,
                 concurrency: int, on_done: Callable[[GenerationReport], None] | None) -> None:  # fmt: skip
    todo = [k for k in keys if k not in out.done]
    report.total = len(keys)
    report.skipped = len(keys) - len(todo)
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(key: str) -> None:
        async with sem:
            try:
                row, result, error = await work(key)
            except FatalProviderError:
                raise
            except DataError as exc:  # this paper's files are unreadable; the others go on
                row, result, error = None, None, f"data: {exc}"
            except ProviderError as exc:  # this item failed for good; the run goes on
                row, result, error = None, None, f"provider error: {exc}"
        if result is not None:
            report.usage.add(result.usage)
        if row is not None:
            out.append(row)
            report.written += 1
        else:
            report.failed.append((key, error or "unknown failure"))
        if on_done is not None:
            on_done(report)

    await asyncio.gather(*(one(k) for k in todo))


def _failure(result: StepResult[Any]) -> str:
    return f"unscored: {result.error or 'no valid answer'}"


def generated_system(name: str) -> tuple[SystemSpec, GenerationHooks]:
    """The system ``prism review generate --system name`` writes to, and its generation hooks:
    the registered system of that name when it has hooks, else a new bring-your-own system.
    A name taken by a system that is not generated (``sea``, ``human_reviews``, …) or not usable
    as a folder raises ``ValueError``."""
    clean = name.strip()
    problem = reserved_name_problem(name)
    if problem is not None or clean.lower() in RESERVED_FOLDERS:
        raise ValueError(f"{name!r} cannot be a generated system's folder name"
                         + (f": {problem}" if problem else ""))
    try:
        spec = get_system(clean)
    except KeyError:
        spec = byo_spec(name)
    if spec.generation is None:
        raise ValueError(f"{name!r} cannot be a generated system's folder name: it is the "
                         f"folder of system {spec.id!r}, whose reviews are not generated here")
    return spec, spec.generation


async def generate_reviews(
    layout: Any, venue: str, system: str, judge: Judge, *,
    paper_ids: Sequence[str] | None = None, limit: int | None = None,
    max_paper_chars: int | None = DEFAULT_MAX_CHARS, concurrency: int = 4,
    reviewer_id: str = "LLM_Reviewer", on_done: Callable[[GenerationReport], None] | None = None,
) -> GenerationReport:  # fmt: skip
    """Generate a review for each paper of ``venue`` into the system's folder, through its
    generation hooks (see :func:`generated_system`): ``<venue dir>/<system>/reviews.jsonl``."""
    require_llm(judge)
    spec, hooks = generated_system(system)
    vid = get_venue(venue).id
    path = layout.venue_dir(vid) / spec.folder / hooks.file
    out = JsonlAppender(path)
    ids = list(paper_ids) if paper_ids is not None else layout.paper_ids(vid)
    ids = ids[:limit] if limit else ids
    step = GenerateReview()
    report = GenerationReport(path=path)

    async def work(pid: str) -> tuple[dict[str, Any] | None, StepResult[Any] | None, str | None]:
        paper = layout.load_paper(vid, pid)
        text, truncated = fit_budget(cut_at_references(paper.full_text), max_paper_chars)
        inp = ReviewInput(paper_id=pid, venue=vid, title=paper.title, paper_text=text)
        result = await judge.run(step, inp)
        if not result.ok:
            return None, result, _failure(result)
        draft = result.output
        assert draft is not None  # an ok result has an output
        rating = snap_rating(get_venue(vid), draft.rating)
        row = hooks.row(pid, vid, draft, rating=rating, reviewer_id=reviewer_id,
                        generator=judge.name, truncated=truncated)  # fmt: skip
        return row, result, None

    await _drive(ids, work, out, report, concurrency, on_done)
    return report


async def generate_comments(
    rows: Sequence[Any], out_path: Path, judge: Judge, *, max_paper_chars: int | None = None,
    max_comments: int = 20, concurrency: int = 4,
    on_done: Callable[[GenerationReport], None] | None = None,
) -> GenerationReport:  # fmt: skip
    """Quote-anchored comments for each perturbation row (its ``review_input``, else the
    perturbed paper), written as ``{id, arxiv_id, error_type, comments}`` rows."""
    require_llm(judge)
    by_id = {r.id: r for r in rows if not r.text_withheld}
    out = JsonlAppender(out_path, key="id")
    step = QuoteComments()
    report = GenerationReport(path=out_path)

    async def work(rid: str) -> tuple[dict[str, Any] | None, StepResult[Any] | None, str | None]:
        row = by_id[rid]
        text = row.review_input or row.perturbed_paper or ""
        text, _ = fit_budget(text, max_paper_chars)
        inp = CommentInput(paper_id=row.arxiv_id, title=row.title, paper_text=text, max_comments=max_comments)
        result = await judge.run(step, inp)
        if not result.ok:
            return None, result, _failure(result)
        assert result.output is not None
        comments = [c.model_dump() for c in result.output.comments]
        return ({"id": rid, "arxiv_id": row.arxiv_id, "error_type": row.error_type,
                 "comments": comments, "generator": judge.name}, result, None)  # fmt: skip

    await _drive(list(by_id), work, out, report, concurrency, on_done)
    return report


def review_texts(reviews: Sequence[Review]) -> list[str]:
    """Rendered review texts (section headers kept; score fields appended as a line)."""
    texts = []
    for r in reviews:
        body = render_sections(r.sections)
        if r.raw_scores:
            body += "\n\nScores: " + ", ".join(f"{k}: {v}" for k, v in r.raw_scores.items())
        if body.strip():
            texts.append(body)
    return texts


async def generate_meta_reviews(
    layout: Any, venue: str, source_system: str, out_path: Path, judge: Judge, *,
    paper_ids: Sequence[str] | None = None, limit: int | None = None, concurrency: int = 4,
    on_done: Callable[[GenerationReport], None] | None = None,
) -> GenerationReport:  # fmt: skip
    """A meta-review per paper of ``venue`` from ``source_system``'s reviews, written as
    ``{paper_id, venue, source_system, metareview, recommendation, confidence}`` rows."""
    require_llm(judge)
    vid = get_venue(venue).id
    ids = list(paper_ids) if paper_ids is not None else layout.paper_ids(vid)
    ids = ids[:limit] if limit else ids
    out = JsonlAppender(out_path)
    step = GenerateMetaReview()
    report = GenerationReport(path=out_path)

    async def work(pid: str) -> tuple[dict[str, Any] | None, StepResult[Any] | None, str | None]:
        texts = review_texts(layout.load_reviews(vid, pid, source_system))
        if not texts:
            return None, None, f"no {source_system} reviews"
        paper = layout.load_paper(vid, pid)
        inp = MetaInput(paper_id=pid, venue=vid, title=paper.title, abstract=paper.abstract, reviews=texts)
        result = await judge.run(step, inp)
        if not result.ok:
            return None, result, _failure(result)
        meta = result.output
        assert meta is not None
        return ({"paper_id": pid, "venue": vid, "source_system": source_system,
                 "metareview": meta.metareview, "recommendation": meta.recommendation,
                 "confidence": meta.confidence, "generator": judge.name}, result, None)  # fmt: skip

    await _drive(ids, work, out, report, concurrency, on_done)
    return report

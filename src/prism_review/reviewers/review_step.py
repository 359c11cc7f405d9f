"""The review-generation step: a paper in, a structured review with a venue-scale rating out.

It is a :class:`~prism_review.judge.base.JudgeStep`, so the LLM layer's structured output,
lenient parsing, re-ask, cache, retries, audit log and cost accounting all apply. Generation has
no offline implementation: :class:`LLMOnlyStep`'s :meth:`~LLMOnlyStep.offline` raises
:class:`GenerationNeedsLLM`.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field, field_validator

from prism_review.judge.base import ChatMessage, I, Judge, JudgeStep, O
from prism_review.judge.fence import fence, with_data_rule
from prism_review.llm.provider import judge_forms
from prism_review.records import Section
from prism_review.venues import Venue, get_venue


class GenerationNeedsLLM(RuntimeError):
    """Raised when a generation step is asked to run on the offline judge."""

    def __init__(self, step: str) -> None:
        super().__init__(
            f"{step} writes new text and has no offline judge: configure an LLM "
            f"(--judge {judge_forms(' or ')})"
        )


def require_llm(judge: Judge, what: str = "generation") -> None:
    """Raise :class:`GenerationNeedsLLM` for the offline judge (``what`` names the work)."""
    if getattr(judge, "mode", "llm") == "offline":
        raise GenerationNeedsLLM(what)


class LLMOnlyStep(JudgeStep[I, O]):
    """A step with no offline implementation: :meth:`offline` raises :class:`GenerationNeedsLLM`."""

    def offline(self, inp: I) -> O:
        raise GenerationNeedsLLM(self.name)


class ReviewInput(BaseModel):
    """What the reviewer model sees about one paper."""

    paper_id: str
    venue: str
    title: str = ""
    paper_text: str


class ReviewDraft(BaseModel):
    """A generated review: the four standard sections plus the venue's overall rating."""

    summary: str = Field(description="What the paper claims and does, in your own words (80-150 words)")
    strengths: list[str] = Field(description="Specific strengths, one per item")
    weaknesses: list[str] = Field(description="Specific weaknesses, most serious first, one per item")
    questions: list[str] = Field(description="Questions for the authors, one per item")
    rating: float = Field(description="Overall rating on the venue's scale")
    confidence: int = Field(description="Reviewer confidence, 1 (guess) to 5 (certain)")

    @field_validator("strengths", "weaknesses", "questions", mode="before")
    @classmethod
    def _listify(cls, v: object) -> object:
        """Accept one string of bullet lines where a list was asked for."""
        if isinstance(v, str):
            items = [line.strip().lstrip("-*•").strip() for line in v.split("\n")]
            return [i for i in items if i]
        return v

    def sections(self) -> list[Section]:
        """The review as ordered sections (lists rendered as ``- item`` bullets)."""

        def bullets(items: list[str]) -> str:
            return "\n".join(f"- {i.strip()}" for i in items if i.strip())

        return [
            Section(name="Summary", text=self.summary.strip()),
            Section(name="Strengths", text=bullets(self.strengths)),
            Section(name="Weaknesses", text=bullets(self.weaknesses)),
            Section(name="Questions", text=bullets(self.questions)),
        ]


def scale_text(venue: Venue) -> str:
    """The venue's rating scale in words, e.g. ``"Rating from 1 to 10 (allowed: 1, 3, 5, 6, 8, 10)"``."""
    s = venue.rating_scale
    text = f"{venue.rating_field} from {s.low:g} (strong reject) to {s.high:g} (strong accept)"
    if s.values:
        text += f"; use one of: {', '.join(f'{v:g}' for v in s.values)}"
    return text


def snap_rating(venue: Venue, value: float) -> float | None:
    """``value`` on the venue scale: the nearest allowed point, or None when outside the scale."""
    s = venue.rating_scale
    if not s.low <= value <= s.high:
        return None
    if not s.values:
        return value
    return min(s.values, key=lambda v: (abs(v - value), v))


_SYSTEM = """\
You are an expert reviewer for {venue_name}. You write a careful, fair and specific review of the \
submitted paper, as the venue's programme committee expects. Ground every point in the paper: \
name the section, equation, table or experiment it concerns. Prefer a few substantive points over \
many shallow ones; order weaknesses by how much they affect the paper's conclusions. Do not \
invent content the paper does not contain.

Answer with one JSON object with these keys:
- "summary": a neutral summary of the problem, method and main results (80-150 words);
- "strengths": a list of strings;
- "weaknesses": a list of strings, the most serious first;
- "questions": a list of questions whose answers could change your assessment;
- "rating": {scale};
- "confidence": an integer from 1 (educated guess) to 5 (certain, checked the details)."""

_USER = """\
Paper id: {paper_id}
Title:
{title}

Paper text:
{paper}

Write your review as the JSON object described."""


class GenerateReview(LLMOnlyStep[ReviewInput, ReviewDraft]):
    """Write one review of one paper, rating on the paper's venue scale."""

    name: ClassVar[str] = "generate.review"
    #: generated text is kept even when its check still fails after the re-ask (it is not a score)
    keeps_soft_checked: ClassVar[bool] = True
    Input = ReviewInput
    Output = ReviewDraft

    def messages(self, inp: ReviewInput) -> list[ChatMessage]:
        venue = get_venue(inp.venue)
        system = _SYSTEM.format(venue_name=f"{venue.hf_folder.replace('_', ' ')}", scale=scale_text(venue))
        user = _USER.format(paper_id=inp.paper_id, title=fence("TITLE", inp.title or "(untitled)"),
                            paper=fence("PAPER", inp.paper_text))
        return [ChatMessage(role="system", content=with_data_rule(system)), ChatMessage(role="user", content=user)]

    def check(self, inp: ReviewInput, out: ReviewDraft) -> str | None:
        venue = get_venue(inp.venue)
        problems = []
        if snap_rating(venue, out.rating) is None:
            problems.append(f"the rating {out.rating:g} is outside the scale ({scale_text(venue)})")
        if not out.summary.strip():
            problems.append("the summary is empty")
        if not any(w.strip() for w in out.weaknesses):
            problems.append("no weaknesses were given")
        if not 1 <= out.confidence <= 5:
            problems.append("confidence must be an integer from 1 to 5")
        return "; ".join(problems) or None

    def max_tokens(self, inp: ReviewInput) -> int | None:
        return 4096

"""Quote-anchored review comments (the OpenAIReview comment format) for the perturbation task.

Each comment quotes the paper verbatim and explains the problem:
``{title, quote, explanation, comment_type}`` with ``comment_type`` ``technical`` or ``logical``.
The perturbation scorer credits a comment only when its quote overlaps an edited span, so
:meth:`QuoteComments.check` re-asks once when most quotes are not found in the paper text.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import BaseModel, Field, field_validator

from prism_review.judge.base import ChatMessage
from prism_review.judge.fence import fence, with_data_rule
from prism_review.reviewers.review_step import LLMOnlyStep


class Comment(BaseModel):
    """One quote-anchored comment."""

    title: str = Field(description="A short title naming the problem")
    quote: str = Field(description="An exact, contiguous excerpt of the paper (one sentence or formula)")
    explanation: str = Field(description="Why the quoted text is wrong, with the evidence")
    comment_type: Literal["technical", "logical"] = Field(
        description="technical: a math, numeric or factual error; logical: a flawed inference or claim"
    )

    @field_validator("comment_type", mode="before")
    @classmethod
    def _lower(cls, v: object) -> object:
        """Case-insensitive; other labels map to ``logical`` when they mention logic or
        reasoning, else to ``technical`` (one odd label must not void the whole answer)."""
        if not isinstance(v, str):
            return v
        low = v.strip().lower()
        if low in ("technical", "logical"):
            return low
        return "logical" if ("logic" in low or "reason" in low) else "technical"


class CommentInput(BaseModel):
    """The paper text a comment-writing model reviews."""

    paper_id: str
    title: str = ""
    paper_text: str
    max_comments: int = 20


class CommentList(BaseModel):
    """The comments on one paper."""

    comments: list[Comment]


_WS = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _WS.sub(" ", text).strip().lower()


def quote_found(quote: str, folded_paper: str) -> bool:
    """True when ``quote`` occurs in the paper after folding whitespace and case."""
    q = _fold(quote)
    return bool(q) and q in folded_paper


_SYSTEM = """\
You are checking a scientific paper for errors before publication. Read it closely and report \
concrete mistakes: wrong equations, signs, indices or numbers; computations that do not add up; \
claims that the paper's own results, tables or definitions contradict; conclusions the evidence \
does not support (reversed causality, over-interpreted or cherry-picked results). Ignore style, \
typos and missing citations.

For each problem give one comment as a JSON object with:
- "title": a few words naming the problem;
- "quote": the exact text from the paper where the problem is, copied character for character \
(keep LaTeX as written; one sentence, formula or table row; no ellipses);
- "explanation": why it is wrong, citing what in the paper contradicts it;
- "comment_type": "technical" (math, numbers, facts) or "logical" (reasoning, claims).

Answer with {{"comments": [...]}}, at most {n} comments, the most certain first. If you find no \
error, answer {{"comments": []}}."""

_USER = """\
Title:
{title}

The paper:
{paper}"""


class QuoteComments(LLMOnlyStep[CommentInput, CommentList]):
    """Find errors in a paper and anchor each with a verbatim quote."""

    name: ClassVar[str] = "generate.comments"
    #: generated text is kept even when its check still fails after the re-ask (it is not a score)
    keeps_soft_checked: ClassVar[bool] = True
    Input = CommentInput
    Output = CommentList

    def messages(self, inp: CommentInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=with_data_rule(_SYSTEM.format(n=inp.max_comments))),
            ChatMessage(role="user", content=_USER.format(title=fence("TITLE", inp.title or "(untitled)"),
                                                          paper=fence("PAPER", inp.paper_text))),
        ]

    def finalize(self, inp: CommentInput, out: CommentList) -> CommentList:
        kept = [c for c in out.comments if c.quote.strip() or c.explanation.strip()]
        return CommentList(comments=kept[: inp.max_comments])

    def check(self, inp: CommentInput, out: CommentList) -> str | None:
        if not out.comments:
            return None
        folded = _fold(inp.paper_text)
        missing = [c.quote for c in out.comments if not quote_found(c.quote, folded)]
        if len(missing) * 2 > len(out.comments):
            return (
                f"{len(missing)} of {len(out.comments)} quotes do not occur verbatim in the paper; "
                "copy each quote exactly from the paper text"
            )
        return None

    def max_tokens(self, inp: CommentInput) -> int | None:
        return 8192

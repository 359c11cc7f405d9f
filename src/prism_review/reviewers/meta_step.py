"""Meta-review generation: an area chair's synthesis of a paper's reviews, with a recommendation."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field, field_validator

from prism_review.judge.base import ChatMessage
from prism_review.judge.fence import fence, with_data_rule
from prism_review.reviewers.review_step import LLMOnlyStep


class MetaInput(BaseModel):
    """The reviews of one paper (rendered text), with the paper's title and abstract."""

    paper_id: str
    venue: str
    title: str = ""
    abstract: str = ""
    reviews: list[str]


class MetaReview(BaseModel):
    """A generated meta-review."""

    metareview: str = Field(description="The synthesis: consensus, disagreements, decisive issues")
    recommendation: Literal["accept", "reject"]
    confidence: float = Field(description="Probability the paper should be accepted, 0 to 1")

    @field_validator("recommendation", mode="before")
    @classmethod
    def _lower(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v


_SYSTEM = """\
You are the area chair for a paper submitted to {venue}. Write the meta-review from the reviews \
below: state the paper's contribution in one or two sentences, the points on which reviewers \
agree, where they disagree and whose argument is stronger, and which issues decide the outcome. \
Rely only on the reviews and the abstract; do not add new criticisms.

Answer with one JSON object: {{"metareview": "...", "recommendation": "accept" or "reject", \
"confidence": the probability (0 to 1) that the paper should be accepted}}."""


class GenerateMetaReview(LLMOnlyStep[MetaInput, MetaReview]):
    """Synthesise a paper's reviews into a meta-review and an accept/reject recommendation."""

    name: ClassVar[str] = "generate.meta_review"
    #: generated text is kept even when its check still fails after the re-ask (it is not a score)
    keeps_soft_checked: ClassVar[bool] = True
    Input = MetaInput
    Output = MetaReview

    def messages(self, inp: MetaInput) -> list[ChatMessage]:
        blocks = "\n\n".join(
            f"=== Review {i} ===\n{fence('REVIEW', text.strip())}" for i, text in enumerate(inp.reviews, 1)
        )
        user = (
            f"Title:\n{fence('TITLE', inp.title or '(untitled)')}\n\n"
            f"Abstract:\n{fence('ABSTRACT', inp.abstract or '(not given)')}\n\n{blocks}"
        )
        return [
            ChatMessage(role="system", content=with_data_rule(_SYSTEM.format(venue=inp.venue))),
            ChatMessage(role="user", content=user),
        ]

    def finalize(self, inp: MetaInput, out: MetaReview) -> MetaReview:
        return out.model_copy(update={"confidence": min(1.0, max(0.0, out.confidence))})

    def check(self, inp: MetaInput, out: MetaReview) -> str | None:
        return "the meta-review text is empty" if not out.metareview.strip() else None

    def max_tokens(self, inp: MetaInput) -> int | None:
        return 2048

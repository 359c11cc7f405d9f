"""Review generation with any configured LLM: reviews, quote-anchored comments, meta-reviews.

Every generator is a :class:`~prism_review.judge.base.JudgeStep`, so the LLM layer's cache,
retries, audit log and cost accounting apply; none has an offline implementation.
"""

from prism_review.reviewers.comment_step import Comment, CommentInput, CommentList, QuoteComments
from prism_review.reviewers.generate import (
    GenerationReport,
    generate_comments,
    generate_meta_reviews,
    generate_reviews,
)
from prism_review.reviewers.meta_step import GenerateMetaReview, MetaInput, MetaReview
from prism_review.reviewers.review_step import (
    GenerateReview,
    GenerationNeedsLLM,
    ReviewDraft,
    ReviewInput,
)

__all__ = [
    "Comment",
    "CommentInput",
    "CommentList",
    "GenerateMetaReview",
    "GenerateReview",
    "GenerationNeedsLLM",
    "GenerationReport",
    "MetaInput",
    "MetaReview",
    "QuoteComments",
    "ReviewDraft",
    "ReviewInput",
    "generate_comments",
    "generate_meta_reviews",
    "generate_reviews",
]

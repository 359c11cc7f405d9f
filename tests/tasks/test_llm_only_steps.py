"""Generation and LLM-predictor steps have no offline answer: each names itself when asked."""

from __future__ import annotations

import pytest

from prism_review.judge.base import OfflineJudge
from prism_review.reviewers import (
    GenerateMetaReview,
    GenerateReview,
    GenerationNeedsLLM,
    QuoteComments,
)
from prism_review.reviewers.review_step import LLMOnlyStep, require_llm
from prism_review.tasks.acceptance import PredictAcceptance
from prism_review.tasks.perturbation import RateExplanation
from prism_review.tasks.scores import PredictRating


@pytest.mark.parametrize("step_cls", [GenerateReview, QuoteComments, GenerateMetaReview, PredictAcceptance,
                                      PredictRating, RateExplanation])
def test_offline_raises_naming_the_step(step_cls: type[LLMOnlyStep]) -> None:
    step = step_cls()
    assert step.temperature == 0.0
    with pytest.raises(GenerationNeedsLLM, match=step.name.replace(".", r"\.") + ".*no offline judge"):
        step.offline(None)  # type: ignore[arg-type]


def test_require_llm_names_the_work() -> None:
    with pytest.raises(GenerationNeedsLLM, match="^score prediction with an LLM writes"):
        require_llm(OfflineJudge(), "score prediction with an LLM")
    require_llm(type("J", (), {"mode": "llm"})())  # an LLM judge passes

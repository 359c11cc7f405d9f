"""VADER polarity of a text, computed once per process for every offline judge that reads it.

The DoA grounding head (:mod:`prism_review.judge.depth.model`) and the constructiveness tone
rule (:mod:`prism_review.judge.constructiveness.rules`) both score sentences of the same review
with VADER; ``polarity_scores`` is a pure function of the text, so one memo serves both.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _analyzer() -> Any:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


@lru_cache(maxsize=20_000)
def polarity(text: str) -> tuple[float, float, float, float]:
    """VADER's (compound, pos, neg, neu) of ``text``."""
    s = _analyzer().polarity_scores(text)
    return (s["compound"], s["pos"], s["neg"], s["neu"])

"""Judge steps (LLM or offline) behind one interface; see :mod:`prism_review.judge.base`."""

from prism_review.judge.base import (
    ChatMessage,
    Judge,
    JudgeStep,
    OfflineJudge,
    StepResult,
    Usage,
)

__all__ = ["ChatMessage", "Judge", "JudgeStep", "OfflineJudge", "StepResult", "Usage"]

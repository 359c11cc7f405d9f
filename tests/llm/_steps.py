"""A tiny judge step used by the LLM-layer tests."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from prism_review.judge.base import ChatMessage, JudgeStep


class LabelIn(BaseModel):
    text: str
    budget: int | None = None


class LabelOut(BaseModel):
    label: Literal["positive", "negative", "neutral"]
    score: int
    reasons: list[str] = []


class LabelStep(JudgeStep[LabelIn, LabelOut]):
    """Label a sentence; ``check`` rejects a score above 5; ``finalize`` sorts the reasons."""

    name = "test.label"
    Input = LabelIn
    Output = LabelOut

    def messages(self, inp: LabelIn) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content="Label the sentiment. Reply in JSON."),
            ChatMessage(role="user", content=inp.text),
        ]

    def offline(self, inp: LabelIn) -> LabelOut:
        return LabelOut(label="neutral", score=0)

    def finalize(self, inp: LabelIn, out: LabelOut) -> LabelOut:
        return out.model_copy(update={"reasons": sorted(out.reasons)})

    def check(self, inp: LabelIn, out: LabelOut) -> str | None:
        return f"score {out.score} is above the maximum 5" if out.score > 5 else None

    def max_tokens(self, inp: LabelIn) -> int | None:
        return inp.budget


class OtherStep(LabelStep):
    """The same I/O under another step name."""

    name = "test.other"


class DraftStep(LabelStep):
    """The same I/O as a generation step: keeps an answer that fails its check."""

    name = "test.draft"
    keeps_soft_checked = True

"""The judge-step contract every PRISM extraction step follows.

A step has a typed input and a typed output (pydantic models). It can run two ways behind one
interface:

* ``offline(inp)`` — the built-in offline judge: deterministic, no network, no key;
* ``messages(inp)`` — the chat messages an LLM judge is sent; the LLM layer asks for
  ``Output`` as structured JSON, parses it leniently, validates it, re-asks once with the full
  original instructions when it fails, and records the step as *unscored* (never 0) when it
  still fails.

``finalize(inp, out)`` normalises an output from either route (case-insensitive labels,
index-based attachment, clamping) and is where the spec's deterministic post-processing lives.
``check(inp, out)`` may return a problem description (e.g. unknown reviewer ids); the LLM
route then re-asks once with the problem stated. An answer that still fails is unscored, unless
the step sets ``keeps_soft_checked`` (generation steps only: their output is text to keep, not a
score), in which case it is kept with a ``warning``.

``schema_enums(inp)`` names fields whose allowed values are known when the call is made (the
reviewer ids of a pool, the flaw ids to evaluate); the LLM layer writes them into the response
schema as enums, so a server that decodes under the schema can only produce known ids.

Metrics consume step outputs only, so results can be re-scored from the results log without
calling a model.
"""

from __future__ import annotations

import functools
import hashlib
from abc import ABC, abstractmethod
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field

#: the reply cap of a call that answers for many items at once (a paper's novelty verdicts, a
#: group of reviews' comments), within common models' output limits
MANY_ITEMS_REPLY_TOKENS = 32_000

I = TypeVar("I", bound=BaseModel)  # noqa: E741
O = TypeVar("O", bound=BaseModel)  # noqa: E741


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class Usage(BaseModel):
    """What one step cost: calls made, tokens, money, cache hits, wall time."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.cache_hits += other.cache_hits
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.seconds += other.seconds


class StepResult(BaseModel, Generic[O]):
    """The outcome of one step: an output, or ``status="unscored"`` with the raw reply kept."""

    step: str
    status: Literal["ok", "unscored"] = "ok"
    output: O | None = None
    raw: str | None = None
    error: str | None = None
    #: an ``ok`` output kept although its check failed (``keeps_soft_checked`` steps only)
    warning: str | None = None
    usage: Usage = Field(default_factory=Usage)
    #: request hashes of the LLM calls behind this result (for the audit log)
    request_ids: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.output is not None


class JudgeStep(ABC, Generic[I, O]):
    """One extraction step. Subclasses set ``name``, ``Input``, ``Output`` and the methods."""

    #: dotted name, e.g. ``depth.segment``; used in config overrides, the cache key and the audit log
    name: ClassVar[str]
    Input: type[BaseModel]
    Output: type[BaseModel]
    #: default sampling temperature for the LLM route
    temperature: ClassVar[float] = 0.0
    #: keep an LLM answer that still fails ``check`` after the re-ask (with a warning) instead
    #: of leaving the step unscored; for generation steps only, never for a scoring step
    keeps_soft_checked: ClassVar[bool] = False
    #: the most output tokens :meth:`max_tokens` asks for: this step's cap in place of the
    #: judge's global default (8,000), as ``temperature`` replaces the default temperature; a
    #: ``max_tokens`` the user configures (globally or for the step) still wins. None: the
    #: global cap. A step whose budget can exceed the global default must set it, or its
    #: requests are cut to the global cap (``llm/settings.py``, "Step caps")
    reply_cap: ClassVar[int | None] = None

    @abstractmethod
    def messages(self, inp: I) -> list[ChatMessage]:
        """The prompt for an LLM judge (system + user messages)."""

    @abstractmethod
    def offline(self, inp: I) -> O:
        """The built-in offline judge's answer."""

    def finalize(self, inp: I, out: O) -> O:
        """Deterministic normalisation applied to every output (LLM or offline)."""
        return out

    def check(self, inp: I, out: O) -> str | None:
        """A problem that warrants one re-ask (LLM route only), or None."""
        return None

    def max_tokens(self, inp: I) -> int | None:
        """Output-token budget for this call, at most the step's cap (``reply_cap``, else the
        global one); None uses the cap."""
        return None

    def schema_enums(self, inp: I) -> dict[str, list[Any]]:
        """Allowed values per output field name, known from ``inp`` (e.g. ``{"reviewer_id":
        [...]}``); the LLM layer writes them into the response schema as enums."""
        return {}


class Judge(Protocol):
    """Runs judge steps. ``name`` is e.g. ``offline`` or ``openai/gpt-4o-mini``."""

    name: str
    mode: Literal["offline", "llm"]

    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]: ...

    def describe(self) -> dict[str, Any]:
        """Settings to record in the run manifest (never keys)."""
        ...


class OfflineUnscored(Exception):
    """Raised by a step's ``offline`` when the offline judge has nothing to judge the input on
    (e.g. a novelty verdict with no candidate text): the result is unscored, never a default."""


class OfflineJudge:
    """The built-in judge: calls each step's ``offline`` implementation."""

    name = "offline"
    mode: Literal["offline", "llm"] = "offline"

    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        try:
            out = step.finalize(inp, step.offline(inp))
        except OfflineUnscored as exc:
            return StepResult(step=step.name, status="unscored", error=str(exc))
        return StepResult(step=step.name, status="ok", output=out)

    def describe(self) -> dict[str, Any]:
        # the bundled models' fingerprint: a run folder made with other model files is not
        # resumed with these (the runner refuses a run whose config hash differs)
        return {"judge": "offline", "models": offline_models_fingerprint()}


@functools.lru_cache(maxsize=1)
def offline_models_fingerprint() -> str:
    """Short sha256 over the names and bytes of every file under ``resources/models``."""
    root = Path(str(resources.files("prism_review") / "resources" / "models"))
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".md"):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]

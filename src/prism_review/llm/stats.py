"""The judge's live totals (:class:`JudgeStats`): calls, cache hits, tokens, cost and the
counters only a judge keeps, for progress bars, the end-of-run line and the run manifest."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from prism_review.judge.base import Usage


@dataclass
class JudgeStats:
    """Live totals for progress bars and the run manifest: the judge's :class:`Usage` (calls,
    cache hits, tokens, cost, summed step seconds) and the counters only a judge keeps."""

    #: every model call and cache hit of the judge (``seconds``: the steps' summed wall time)
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    #: steps left unscored by a deterministic outcome (a check failed after its re-ask, a
    #: reply cut at the step's cap or the model's limit, a refused request, an answer the
    #: model repeated unusable): written as unscored, kept by a resume
    unscored: int = 0
    #: steps given up on transient failures only (no reply, or malformed replies the model
    #: never repeated, after every retry): their units are not written, the next run in the
    #: same folder computes them again
    transient: int = 0
    #: of the prompt tokens, those the provider reported served from its prompt cache
    cached_prompt_tokens: int = 0
    errors: int = 0
    #: the same request sent again: after a transport error or a malformed reply
    retries: int = 0
    #: corrective re-asks actually sent (repair, longer budget, check); one answered from the
    #: cache or still waiting for its batch is not counted
    reasks: int = 0
    unpriced_calls: int = 0
    #: replies cut off at the token budget (``finish_reason="length"``); each is a failed parse,
    #: asked again once with twice the budget, within the step's cap (none at the cap)
    truncated: int = 0
    #: of ``usage.calls``, those answered through a batch (priced at the batch price)
    batch_calls: int = 0

    def as_dict(self) -> dict[str, Any]:
        """One flat dict: the usage fields beside the counters (the manifest's
        ``judge_stats``, whose keys are those of the earlier flat class plus ``seconds``)."""
        own = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "usage"}
        return {**self.usage.model_dump(), **own}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> JudgeStats:
        """The stats :meth:`as_dict` wrote (a run's ``judge_stats``, summed over its workers)."""
        own = {f.name: d[f.name] for f in fields(cls) if f.name != "usage" and f.name in d}
        usage = Usage.model_validate({k: d[k] for k in Usage.model_fields if k in d})
        return cls(usage=usage, **own)

    def summary(self) -> str:
        """One line for the end of a run, e.g. ``0 model calls, 12 cache hits (100%), ...``."""
        u = self.usage
        answered = u.calls + u.cache_hits
        share = f" ({100 * u.cache_hits / answered:.0f}%)" if answered else ""
        text = (f"{u.calls} model calls, {u.cache_hits} cache hits{share}, "
                f"{u.prompt_tokens + u.completion_tokens} tokens, ${u.cost_usd:.4f}")
        if self.batch_calls:
            text += f" ({self.batch_calls} calls via batch, at batch prices)"
        if self.unpriced_calls:
            text += f" (+{self.unpriced_calls} unpriced calls)"
        extras = [f"{n} {label}" for n, label in ((self.retries, "retries"),
                  (self.reasks, "re-asks"), (self.errors, "failed calls"),
                  (self.truncated, "truncated replies"),
                  (self.unscored, "unscored steps"),
                  (self.transient, "steps failed transiently (retried by the next run)")) if n]
        return text + (", " + ", ".join(extras) if extras else "")

"""The judge's call pattern: ``--protocol economical`` (default), ``pooled`` or ``reference``.

Every protocol computes every metric with the same definitions from the same kind of judge
decisions; they differ in how the decisions are asked for (docs/fidelity.md, "Protocols"):

* ``economical`` (the default) is **selection-invariant**: every call's content is determined
  by one review (with its paper, the paper's retrieved candidates, the rubric; for flaws the
  paper's human panel as PRISM pairs it), so a review's scores do not depend on which other
  systems, papers or reviews are in the run, on their order, on ``--limit``/``--sample``, or on
  a resume. It keeps every saving that respects this: DoA in one structured call per review;
  novelty's paper side and candidate pool once per paper and one ``novelty.verdict_review``
  call per review (its claims against the pool, split when they exceed one call's output
  budget); one constructiveness call per review (the rubric first, so provider prompt caching
  applies); for flaws the human side once per paper (the humans' consolidation, validation and
  mapping) and per pairing one ``flaws.extend``, a validation of its new flaws and one
  ``flaws.map``, each holding only the pairing's system review and the human side
  (``dimensions/flaws_human_side.py``). Two reviews share a decision only through the cache of
  an identical request.
* ``pooled`` is the earlier economical pattern, an explicit opt-in: calls that hold several
  reviews (the novelty claims of all the paper's reviews in ``novelty.verdict_paper`` calls,
  ``dimensions/novelty_paper.py``; the reviews of a group of consecutive papers in one
  ``constructiveness.arc_batch`` call, ``pipelines/grouping.py``) and the flaw pieces built
  from all of a paper's reviews (``dimensions/flaws_pieces.py``). Cheaper, but **a review's scores depend on what else is in the
  run** (other systems, ``--limit``, the order of the source); Table 1, summary.md and the
  report say so.
* ``reference`` reproduces the reference design's **call pattern**, for audits and paper
  reproduction: three DoA calls per review (segment, classify, ground), one novelty verdict per
  claim × candidate, one constructiveness call per review, the flaw pipeline per pairing.

The offline judge makes no calls; it runs the same code under every protocol.

``PROTOCOL_VERSIONS`` enter the run's config hash (``pipelines/run_config.py``): a protocol
whose meaning changes gets a new version, so a run folder made under the old meaning is refused
on resume instead of being mixed. Version 2 of ``economical`` is the selection-invariant one
(version 1, today's ``pooled``, had no version in the hash); version 3 made flaws invariant too
(version 2 still consolidated, validated and mapped every review of a paper together).
"""

from __future__ import annotations

from typing import Any

PROTOCOLS = ("economical", "pooled", "reference")
DEFAULT_PROTOCOL = "economical"
#: each protocol's meaning, hashed into the config hash (1: never changed, left out of the hash)
PROTOCOL_VERSIONS: dict[str, int] = {"economical": 3, "pooled": 1, "reference": 1}
#: protocols whose scores depend on what else is in the run
SELECTION_DEPENDENT = frozenset({"pooled"})


def protocol_of(ctx: Any) -> str:
    """The run's protocol (``economical`` unless the run says otherwise)."""
    value = str(ctx.setting("protocol", DEFAULT_PROTOCOL) or DEFAULT_PROTOCOL)
    if value not in PROTOCOLS:
        raise ValueError(f"unknown protocol {value!r}; use {', '.join(PROTOCOLS)}")
    return value


def _llm(ctx: Any) -> bool:
    """An LLM judge outside compat (compat reproduces the original code call for call; the
    offline judge makes no calls)."""
    return not ctx.compat and getattr(ctx.judge, "mode", "offline") != "offline"


def is_economical(ctx: Any) -> bool:
    """True when the run asks an LLM judge for the decisions without repeated work: under
    ``economical`` and under ``pooled`` (which adds calls across reviews; :func:`is_pooled`)."""
    return _llm(ctx) and protocol_of(ctx) in ("economical", "pooled")


def is_pooled(ctx: Any) -> bool:
    """True when the run asks an LLM judge under ``--protocol pooled``: calls may hold several
    reviews, so a review's scores depend on the other reviews of the run."""
    return _llm(ctx) and protocol_of(ctx) == "pooled"

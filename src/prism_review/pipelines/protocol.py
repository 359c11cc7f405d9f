"""The judge's call pattern: ``--protocol economical`` (default) or ``--protocol reference``.

Both protocols compute every metric with the same definitions from the same kinds of judge
decisions; they differ in how the decisions are asked for (docs/fidelity.md, "Protocols"), and
so in the context each decision is made in:

* ``reference`` reproduces the reference design's call pattern (the prompt text is this
  project's own), for audits and paper reproduction:
  three DoA calls per review (segment, classify, ground), one novelty verdict per
  claim × candidate, one constructiveness call per review, the flaw pipeline per pairing.
* ``economical`` asks for the same decisions without repeated work: DoA in one structured call
  per review, the novelty claims of all the paper's reviews against its candidates in one call
  per paper (``dimensions/novelty_paper.py``; split when a paper's claims exceed one call's
  output budget), the reviews of a group of consecutive papers in one constructiveness call
  (``pipelines/grouping.py``), and the flaw pieces once
  per paper (one consolidation of all its reviews, one validation, one batched mapping;
  ``dimensions/flaws_pieces.py``) from which each pairing's consensus is built.

The offline judge makes no calls; it runs the same code under both protocols.
"""

from __future__ import annotations

from typing import Any

PROTOCOLS = ("economical", "reference")
DEFAULT_PROTOCOL = "economical"


def protocol_of(ctx: Any) -> str:
    """The run's protocol (``economical`` unless the run says otherwise)."""
    value = str(ctx.setting("protocol", DEFAULT_PROTOCOL) or DEFAULT_PROTOCOL)
    if value not in PROTOCOLS:
        raise ValueError(f"unknown protocol {value!r}; use {' or '.join(PROTOCOLS)}")
    return value


def is_economical(ctx: Any) -> bool:
    """True when the run asks an LLM judge under the economical protocol (not compat, which
    reproduces the original code call for call, and not offline, which makes no calls)."""
    if ctx.compat or getattr(ctx.judge, "mode", "offline") == "offline":
        return False
    return protocol_of(ctx) == "economical"

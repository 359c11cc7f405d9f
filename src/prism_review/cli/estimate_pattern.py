"""The later calls of a ``--dry-run`` estimate: what a run asks after each unit's first call.

A dry run queues the first call of every unit the cache cannot finish and stops there: the later
calls of a unit need the replies before them (a review's claims before their verdicts, a flaw
bank before its validation). This module adds them from each protocol's call pattern, counted
on what the deferred units hold (their review texts and papers, ``BatchQueue.units``):

* ``per``: the basis of a later step's count: ``"reviews"`` (review texts of the dimension's
  deferred units), ``"papers"`` (their papers), ``"units"`` (the units: a flaw pairing) or
  ``"first"`` (the dimension's first calls);
* ``rate``: calls of the step per basis item. Exact where the pattern fixes it (one
  ``depth.classify`` per review under the reference protocol, one ``flaws.validate`` per paper
  under the economical one); where it follows from the replies (verdict calls follow the number
  of claims and candidates, map calls the number of flaws), the rate measured on the bundled
  demo with the quoting loopback judge (``benchmarks/bench_llm_cost.py``, 2026-12-02);
* ``tokens`` and ``budget``: input tokens (the estimate's 4-characters-a-token count, schema
  included) and output budget of one call of the step, as measured on the demo; the tokens are
  scaled by how the run's own first calls of the dimension compare with the demo's (``anchor``).

Not modelled: ``--compat`` (which makes the reference's calls under any protocol) and
``--set verdict_batch=N``; their later calls are counted at the protocol's rates.

A step already queued as a first call (its earlier calls came from the cache) is not added
again: a step's later calls are its predicted calls less those queued. Every call is then
re-asked at :data:`REASK_RATE` (a repair, check or longer-budget ask; the demo's quoting run
re-asks none, a schema-built one ~2 %). ``tests/cli/test_dry_run_estimate.py`` compares the
estimate with the calls a loopback run on the demo counts; a changed call pattern shows there,
and ``benchmarks/bench_llm_cost.py`` prints the rates, tokens and budgets to put here
("--dry-run calibration").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: the share of calls asked again (repair, check or a longer budget), stated in the estimate
REASK_RATE = 0.02


@dataclass(frozen=True)
class Later:
    step: str
    rate: float
    per: str  # "reviews" | "papers" | "units" | "first"
    tokens: float
    budget: float


#: per dimension: the demo's first step and its mean input tokens per call
ANCHORS: dict[str, dict[str, tuple[str, float]]] = {
    "economical": {"novelty": ("novelty.paper", 11308), "flaws": ("flaws.consolidate", 1981)},
    "pooled": {"novelty": ("novelty.paper", 11308), "flaws": ("flaws.consolidate", 3486)},
    "reference": {"depth": ("depth.segment", 1179), "novelty": ("novelty.paper", 11308),
                  "flaws": ("flaws.consolidate", 2352)},
}

_NOVELTY_CLAIMS = Later("novelty.claims", 1.0, "reviews", 1707, 8000)
#: pooled flaws: one bank of all the paper's reviews, its validation and one batch mapping
_POOLED_FLAWS = [Later("flaws.validate", 1.0, "papers", 11725, 4096),
                 Later("flaws.map_batch", 1.0, "papers", 3523, 35000)]
#: economical flaws (protocol version 3): the human side once per paper (consolidate, validate,
#: map_batch), then per pairing one flaws.extend, a validation of its new flaws (0.963 per unit
#: in all: 21 human-side and 57 pairing validations of 81 units) and one flaws.map
_ECONOMICAL_FLAWS = [Later("flaws.map_batch", 1.0, "papers", 1802, 35000),
                     Later("flaws.extend", 0.741, "units", 2116, 35000),
                     Later("flaws.validate", 0.963, "units", 10816, 4096),
                     Later("flaws.map", 0.741, "units", 1411, 35000)]
PATTERNS: dict[str, dict[str, list[Later]]] = {
    # one review per call: a review's claims, then its verdict calls (0.94 per review: reviews
    # with no claim ask none, long ones split); flaws: the human side per paper, then per pairing
    "economical": {
        "novelty": [_NOVELTY_CLAIMS, Later("novelty.verdict_review", 0.94, "reviews", 7284, 10069)],
        "flaws": _ECONOMICAL_FLAWS,
    },
    "pooled": {
        "novelty": [_NOVELTY_CLAIMS, Later("novelty.verdict_paper", 1.38, "papers", 7752, 23490)],
        "flaws": _POOLED_FLAWS,
    },
    # the reference design: DoA's three steps; one verdict per (claim, candidate), ~3.3 claims
    # per review against ~12 distinct candidates; per pairing a bank, its validation and
    # ~1.7 map calls (one per review with a bank issue)
    "reference": {
        "depth": [Later("depth.classify", 1.0, "reviews", 1419, 8000),
                  Later("depth.ground", 1.0, "reviews", 1238, 8000)],
        "novelty": [_NOVELTY_CLAIMS, Later("novelty.verdict", 39.7, "reviews", 4161, 800)],
        "flaws": [Later("flaws.validate", 1.0, "first", 11137, 4096),
                  Later("flaws.map", 1.69, "first", 1547, 35000)],
    },
}


def later_rows(protocol: str, steps: list[dict[str, Any]], units: dict[str, dict[str, Any]],
               prices: Any, model: str | None, *, batch: bool) -> list[dict[str, Any]]:
    """Per dimension, the later calls the first calls (``steps``: the queue's per-step rows)
    will lead to, with their input tokens, output budget and cost (the re-asks not included)."""
    queued = {r["dimension"]: r for r in steps}
    rows: list[dict[str, Any]] = []
    for dim, pattern in PATTERNS.get(protocol, {}).items():
        held = units.get(dim)
        if not held:
            continue
        first = [r for r in steps if r["dimension"].split(".", 1)[0] == dim]
        basis = {"reviews": held["reviews"], "papers": len(held["papers"]), "units": held["units"],
                 "first": sum(r["calls"] for r in first)}
        anchor = ANCHORS.get(protocol, {}).get(dim)
        scale = 1.0
        if anchor and queued.get(anchor[0], {}).get("calls"):
            a = queued[anchor[0]]
            scale = a["input_tokens"] / a["calls"] / anchor[1]
        row: dict[str, Any] = {"dimension": dim, "calls": 0, "input_tokens": 0, "output_budget": 0,
                               "cost_input": 0.0, "cost_max": 0.0, "unpriced": 0}
        for later in pattern:
            calls = round(later.rate * basis[later.per]) - queued.get(later.step, {}).get("calls", 0)
            if calls <= 0:
                continue
            tokens, budget = int(calls * later.tokens * scale), int(calls * later.budget)
            row["calls"] += calls
            row["input_tokens"] += tokens
            row["output_budget"] += budget
            low = prices.cost(model, tokens, 0, batch=batch) if model else None
            if low is None:
                row["unpriced"] += calls
            else:
                row["cost_input"] += low
                row["cost_max"] += prices.cost(model, tokens, budget, batch=batch) or 0.0
        if row["calls"]:
            rows.append(row)
    return rows

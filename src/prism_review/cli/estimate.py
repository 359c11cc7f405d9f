"""``prism evaluate --dry-run``: the estimated calls, tokens and cost of a run, per dimension."""

from __future__ import annotations

from typing import Any

import typer

from prism_review.cli.estimate_pattern import REASK_RATE, later_rows

NOTE = (
    "ESTIMATE (input tokens ~ 4 characters a token, schema included). First calls: the first "
    "call of every unit the cache cannot finish, built as the run will send it. Later calls: "
    "what those units ask next under --protocol {protocol} (a review's claims and verdicts, a "
    "flaw bank's validation and mapping, DoA's later steps), counted on the units' reviews and "
    "papers at the rates of the call pattern measured on the bundled demo; their tokens scale "
    "with this run's first calls. Re-asks: {reask:.0%} of all calls (repairs, checks, longer "
    "budgets). The output column is the token budget, an upper bound. Cost: input only, and "
    "input plus the full output budget."
)
COLUMNS = ("calls", "input_tokens", "output_budget", "cost_input", "cost_max", "unpriced")


def estimate_rows(judge: Any, *, batch: bool, protocol: str = "economical") -> list[dict[str, Any]]:
    """The per-dimension estimate of a dry-run judge (empty for the offline judge): first calls,
    later calls and re-asks, summed in ``calls``, ``input_tokens``, ``output_budget`` and cost."""
    queue = getattr(judge, "batch", None)
    if queue is None:
        return []
    prices = judge.prices
    first: list[dict[str, Any]] = queue.estimate(prices, batch=batch)
    steps: list[dict[str, Any]] = queue.estimate(prices, batch=batch, by_step=True)
    model = next((r.get("model") for r in steps if r.get("model")), None)
    later = {r["dimension"]: r for r in later_rows(protocol, steps, queue.units, prices, model, batch=batch)}
    rows = []
    for dim in sorted({r["dimension"] for r in first} | set(later)):
        f = next((r for r in first if r["dimension"] == dim), None) or dict.fromkeys(COLUMNS, 0)
        g = later.get(dim) or dict.fromkeys(COLUMNS, 0)
        row: dict[str, Any] = {"dimension": dim, "first_calls": f["calls"], "later_calls": g["calls"]}
        for k in COLUMNS:
            row[k] = f[k] + g[k]
        base = row["calls"]
        row["reasks"] = round(base * REASK_RATE)
        share = row["reasks"] / base if base else 0.0  # a re-ask re-sends about a call's input
        for k in ("input_tokens", "output_budget"):
            row[k] = round(row[k] * (1 + share))
        for k in ("cost_input", "cost_max"):
            row[k] *= 1 + share
        row["calls"] = base + row["reasks"]
        rows.append(row)
    return rows


def print_estimate(judge: Any, *, batch: bool, done: int, resumed: int,
                   protocol: str = "economical") -> None:
    """Print the estimate table on stdout (markdown, so it reads the same in a log file)."""
    rows = estimate_rows(judge, batch=batch, protocol=protocol)
    price = "batch prices" if batch else "live prices"
    lines = [f"Dry run · judge {judge.name} · --protocol {protocol} · {price} · no model was called", "",
             "| dimension | calls | input tokens | output budget | cost, input | cost, with full output "
             "| first calls | later calls | re-asks |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total: dict[str, Any] = dict.fromkeys((*COLUMNS, "first_calls", "later_calls", "reasks"), 0)
    for r in rows:
        for k in total:
            total[k] += r[k]
        lines.append(_line(r["dimension"], r))
    lines.append(_line("**total**", total))
    typer.echo("\n".join(lines) + "\n")
    typer.echo(NOTE.format(protocol=protocol, reask=REASK_RATE))
    if total["unpriced"]:
        typer.echo(f"{total['unpriced']} call(s) are for a model with no price: not in the cost "
                   "(pass prices=<file> in the config)")
    if done:
        typer.echo(f"{done} unit(s) need no call: {resumed} already in the run folder, "
                   f"{done - resumed} answered entirely by the cache (written to the run folder)")


def _line(name: str, r: dict[str, Any]) -> str:
    return (f"| {name} | {r['calls']:,} | {r['input_tokens']:,} | {r['output_budget']:,} | "
            f"${r['cost_input']:.4f} | ${r['cost_max']:.4f} | {r['first_calls']:,} | "
            f"{r['later_calls']:,} | {r['reasks']:,} |")

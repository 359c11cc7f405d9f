"""``prism evaluate --dry-run``: the estimated calls, tokens and cost of a run, per dimension."""

from __future__ import annotations

from typing import Any

import typer

NOTE = (
    "ESTIMATE of the first call of every unit the cache cannot finish (input tokens ~ 4 characters "
    "a token, schema included). Later calls of a unit depend on earlier replies and are EXCLUDED, "
    "so this is a lower bound on calls and input tokens; the output column is the token budget, "
    "an upper bound. Cost: input only, and input plus the full output budget."
)


def estimate_rows(judge: Any, *, batch: bool) -> list[dict[str, Any]]:
    """The per-dimension estimate of a dry-run judge (empty for the offline judge)."""
    queue = getattr(judge, "batch", None)
    if queue is None:
        return []
    rows: list[dict[str, Any]] = queue.estimate(judge.prices, batch=batch)
    return rows


def print_estimate(judge: Any, *, batch: bool, done: int, resumed: int) -> None:
    """Print the estimate table on stdout (markdown, so it reads the same in a log file)."""
    rows = estimate_rows(judge, batch=batch)
    price = "batch prices" if batch else "live prices"
    lines = [f"Dry run · judge {judge.name} · {price} · no model was called", "",
             "| dimension | calls (first step) | input tokens | output budget | "
             "cost, input | cost, with full output |",
             "|---|---:|---:|---:|---:|---:|"]
    total = {"calls": 0, "input_tokens": 0, "output_budget": 0, "cost_input": 0.0,
             "cost_max": 0.0, "unpriced": 0}
    for r in rows:
        for k in total:
            total[k] += r[k]
        lines.append(_line(r["dimension"], r))
    lines.append(_line("**total**", total))
    typer.echo("\n".join(lines) + "\n")
    typer.echo(NOTE)
    if total["unpriced"]:
        typer.echo(f"{total['unpriced']} call(s) are for a model with no price: not in the cost "
                   "(pass prices=<file> in the config)")
    if done:
        typer.echo(f"{done} unit(s) need no call: {resumed} already in the run folder, "
                   f"{done - resumed} answered entirely by the cache (written to the run folder)")


def _line(name: str, r: dict[str, Any]) -> str:
    return (f"| {name} | {r['calls']} | {r['input_tokens']:,} | {r['output_budget']:,} | "
            f"${r['cost_input']:.4f} | ${r['cost_max']:.4f} |")

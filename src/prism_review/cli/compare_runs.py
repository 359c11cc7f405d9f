"""``prism compare --runs A B``: do two runs of the same systems agree (judges, protocols)?

Reads both results logs, keeps the selected dimension / venue, and prints per dimension and
metric the per-review Spearman and Pearson correlations, the mean difference B − A with its
bootstrap 95% CI and the share of system rankings preserved
(:mod:`prism_review.pipelines.run_agreement`). Each run's manifest names its judge and protocol,
shown in the header. Two runs with no review in common exit 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer


def _describe(path: Path, manifest: dict[str, Any]) -> str:
    """The run as the header names it: its path, judge and protocol (from its ``manifest``)."""
    from prism_review.report.judge_card import judge_of

    if not manifest:
        return str(path)
    return f"{path} (judge {judge_of(manifest)}, protocol {manifest.get('protocol') or 'not recorded'})"


def _classes(result: dict[str, Any], manifests: list[dict[str, Any]]) -> None:
    """Each metric's class on each run's judge card (``card_class``: ``{"a": ..., "b": ...}``)."""
    from prism_review.report.judge_card import column_classes, run_card

    cards = [column_classes(run_card(m) if m else None, list(result)) for m in manifests]
    for dim, d in result.items():
        for k, m in d["metrics"].items():
            m["card_class"] = {"a": cards[0][dim].get(k, "unmeasured"), "b": cards[1][dim].get(k, "unmeasured")}


def _f(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def render(result: dict[str, Any], names: tuple[str, str]) -> str:
    from prism_review.report.judge_card import SHORT

    lines = [f"A: {names[0]}", f"B: {names[1]}", "card A / B: each run's judge card class of the metric", ""]
    for dim, d in result.items():
        lines.append(f"## {dim}  (rows A {d['rows']['a']} ok {d['rows']['ok_a']}, "
                     f"B {d['rows']['b']} ok {d['rows']['ok_b']})")
        lines.append("| metric | reviews | mean A | mean B | B−A | 95% CI | Spearman | Pearson | rankings kept "
                     "| card A / B |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for k, m in d["metrics"].items():
            rp = m["rankings_preserved"]
            kept = "-" if rp["share"] is None else f"{rp['share']:.2f} ({rp['preserved']}/{rp['pairs']})"
            ci = "-" if m["ci_lower"] is None else f"[{m['ci_lower']:.3f}, {m['ci_upper']:.3f}]"
            lines.append(f"| {k} | {m['n_reviews']} | {_f(m['mean_a'])} | {_f(m['mean_b'])} | "
                         f"{_f(m['mean_diff'])} | {ci} | {_f(m['spearman'])} | {_f(m['pearson'])} | {kept} | "
                         + " / ".join(SHORT.get(c, c) for c in m.get("card_class", {}).values()) + " |")
        lines.append("")
    return "\n".join(lines)


def compare_run_folders(runs: tuple[Path, Path], *, dimension: str | None, venue: str | None,
                        metric: list[str] | None, n_bootstrap: int, as_json: bool,
                        metric_keys: Callable[..., list[str]], dimension_of: Callable[[str], Any],
                        check_metrics: Callable[[list[Any], list[str] | None], None]) -> None:
    from prism_review.pipelines.results import ResultsLogError, read_results
    from prism_review.pipelines.run_agreement import compare_runs

    loaded = []
    for path in runs:
        try:
            rows = read_results(path)
        except (FileNotFoundError, ResultsLogError) as exc:  # no log, or a damaged line in it
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        loaded.append([r for r in rows if (dimension is None or r.dimension == dimension)
                       and (venue is None or r.venue == venue)])
    check_metrics(loaded[0] + loaded[1], metric)  # an unknown --metric: exit 2, as without --runs
    result = compare_runs(loaded[0], loaded[1], lambda d, ok: metric_keys(d, ok, metric or None),
                          dimension_of, n_bootstrap=n_bootstrap)
    if not any(m["n_reviews"] for d in result.values() for m in d["metrics"].values()):
        typer.echo("error: the two runs have no scored review in common", err=True)
        raise typer.Exit(1)
    from prism_review.report.judge_card import run_manifest

    manifests = [run_manifest(p) for p in runs]  # each read once: the card column and the header
    _classes(result, manifests)
    if as_json:
        typer.echo(json.dumps({"a": str(runs[0]), "b": str(runs[1]), "dimensions": result}, sort_keys=True))
    else:
        typer.echo(render(result, (_describe(runs[0], manifests[0]), _describe(runs[1], manifests[1]))))

"""``prism compare --a SYSTEM --b SYSTEM``: is the difference between two systems real?

Reads a run's results log (``<run>/results.jsonl``), keeps rows with status ``ok``, and per
dimension and metric pairs the two systems paper by paper (:mod:`prism_review.pipelines.pairing`:
the groups and per-paper values Table 1 uses, so ``Human`` never includes the flaws human-only
bank and no system its ``@panel`` rows). ``--a`` / ``--b`` take the names Table 1 shows
(case-insensitive); an unknown name exits 2 listing the valid ones, closest first.

For each metric (the dimension's ``compare_metrics`` when it names them, else its summary
metrics, else every numeric key of the rows; ``--metric`` picks others) it prints mean A, mean B,
the difference, its bootstrap 95% CI, the Wilcoxon p (Holm-adjusted across the dimension's metrics) and Cliff's δ with its magnitude
(:mod:`prism_review.metrics.stats`). ``--by decision|tier`` adds the subgroup views.
Generic over any dimension's metric keys.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # the CLI imports every command module at start-up: numpy loads on use only
    from prism_review.dimensions.base import Dimension, ResultRow


def _metric_keys(dimension: str, rows: list[ResultRow], wanted: list[str] | None) -> list[str]:
    from prism_review.pipelines.family import family_metrics

    return family_metrics(_dimension(dimension), rows, wanted)


def _check_metrics(rows: list[ResultRow], wanted: list[str] | None) -> None:
    """Exit 2 naming the valid metrics when ``--metric`` names one no row holds (it would
    compare nothing and print an empty table)."""
    from prism_review.names import UnknownNameError

    present = {k for r in rows for k, v in r.metrics.items()
               if isinstance(v, int | float) and not isinstance(v, bool)}
    for name in wanted or []:
        if name not in present:
            typer.echo(f"error: {UnknownNameError('metric', name, present)}", err=True)
            raise typer.Exit(2)


def _dimension(name: str) -> Dimension | None:
    from prism_review.dimensions.base import get_dimension

    try:
        return get_dimension(name)
    except KeyError:  # a dimension this install does not know: rows group by system
        return None


def compare_rows(
    rows: list[ResultRow],
    a: str,
    b: str,
    *,
    metrics: list[str] | None = None,
    compat: bool = False,
    n_bootstrap: int = 10_000,
    manifest: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The full comparison per dimension (what ``--json`` prints).

    ``manifest`` (the run's) names the judge whose card classes each metric
    (:mod:`prism_review.report.judge_card`); no finding on a not-informative one.

    ``a`` and ``b`` are Table-1 names (case-insensitive); an unknown one raises
    :class:`~prism_review.pipelines.pairing.UnknownGroup`.
    """
    from prism_review.pipelines import family, pairing
    from prism_review.report import judge_card

    by_dim: dict[str, list[ResultRow]] = defaultdict(list)
    for r in rows:
        by_dim[r.dimension].append(r)
    dims = {d: _dimension(d) for d in by_dim}
    names = pairing.group_names(rows, dims)
    ga, gb = pairing.resolve(a, names), pairing.resolve(b, names)
    judge = judge_card.judge_of(manifest) if manifest else "unknown (no manifest.json)"
    card = judge_card.run_card(manifest) if manifest else None
    classes = judge_card.column_classes(card, list(by_dim))
    out: dict[str, Any] = {
        "a": pairing.group_name(ga),
        "b": pairing.group_name(gb),
        "group_a": ga,
        "group_b": gb,
        "judge": judge,
        "judge_card": card is not None,
        "dimensions": {},
    }
    for dim, drows in sorted(by_dim.items()):
        out["dimensions"][dim] = family.compare_pair(drows, dims[dim], ga, gb, metrics=metrics, compat=compat,
                                                     n_bootstrap=n_bootstrap, classes=classes[dim])
    return out


def _f(v: Any, nd: int = 4) -> str:
    return "-" if v is None else f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def render(result: dict[str, Any], by: str | None) -> str:
    """Plain-text tables of :func:`compare_rows`' result."""
    from prism_review.report.judge_card import SHORT, no_finding_line

    a, b = result["a"], result["b"]
    judge = result.get("judge", "?")
    if result.get("judge_card"):
        card = "classes per metric in the `card` column"
    elif judge.startswith("unknown"):
        card = "none (no manifest.json beside the results: every column unmeasured)"
    else:
        card = f"none (unmeasured; measure it with `prism agreement --judge {judge} --dataset ... --file ...`)"
    lines: list[str] = [f"judge {judge} · card: {card}", ""]
    head = [
        "metric",
        "n",
        f"mean {a}",
        f"mean {b}",
        "diff",
        "95% CI",
        "p (Holm)",
        "delta",
        "magnitude",
        "card",
    ]
    for dim, res in result["dimensions"].items():
        lines.append(f"== {dim}: {a} vs {b} ({res['n_papers']} paired papers)")
        missing = [n for n, g in ((a, "a"), (b, "b"))
                   if res.get("groups_present") is not None and result[f"group_{g}"] not in res["groups_present"]]
        if missing:
            lines += [f"{' and '.join(missing)}: no scored row in {dim}, so nothing to pair", ""]
            continue
        fam = res.get("family") or {}
        lines.append(f"Holm family: {a} vs {b} × {dim}'s {len(res['metrics'])} metric(s)"
                     + (" (narrowed by --metric: p differs from the report's)" if fam.get("narrowed") else
                        " (as in the report; docs/results.md)"))
        body = []
        untested = 0
        for m in res["metrics"]:
            r = res["per_metric"][m]
            if r.get("skipped"):
                untested += 1
                body.append([m, str(r["n_valid_pairs"]), _f(r.get("mean_a")), _f(r.get("mean_b")),
                             "-" if r.get("mean_diff") is None else f"{r['mean_diff']:+.4f}",
                             "-", "-", "-", "no test (< 10 pairs)",
                             SHORT.get(r.get("card_class", ""), "unmeasured")])
                continue
            ci = r["bootstrap_95ci"]
            sig = "*" if r["significant_after_correction"] else ""
            body.append(
                [
                    m,
                    str(r["n_valid_pairs"]),
                    _f(r["mean_a"]),
                    _f(r["mean_b"]),
                    f"{r['mean_diff']:+.4f}",
                    f"[{ci['ci_lower']:+.4f}, {ci['ci_upper']:+.4f}]",
                    f"{r['adjusted_p']:.4g}{sig}",
                    f"{r['cliffs_delta']:+.3f}",
                    r["cliffs_delta_magnitude"],
                    SHORT.get(r.get("card_class", ""), "unmeasured"),
                ]
            )
        lines.extend(_table(head, body))
        s = res["summary"]
        lines.append(
            f"{a} better: {', '.join(s['a_better']) or '-'}; "
            f"{b} better: {', '.join(s['b_better']) or '-'}  (* = Holm-adjusted p < 0.05)"
        )
        if untested:
            lines.append(f"{untested} metric(s) with fewer than 10 paired papers: their means are "
                         "shown, but no test, CI or delta (too few pairs to tell a real difference)")
        if s.get("no_finding"):
            lines.append(no_finding_line(judge, s["no_finding"]))
        key = {"decision": "by_decision", "tier": "by_quality_tier"}.get(by or "")
        if key:
            groups = res["subgroups"].get(key)
            if not groups:
                lines.append(
                    f"(no {by} subgroups: missing {'decisions' if by == 'decision' else 'ratings'})"
                )
            for g, gres in (groups or {}).items():
                lines.append(f"-- {by} = {g} ({gres['n_papers']} papers)")
                sub = []
                for m in res["metrics"]:
                    r = gres[m]
                    if r.get("skipped"):
                        sub.append([m, "-", "-", "-", "-", "skipped (< 5 pairs)"])
                    else:
                        sub.append(
                            [
                                m,
                                _f(r["mean_a"]),
                                _f(r["mean_b"]),
                                f"{r['diff']:+.4f}",
                                f"{r['cliffs_delta']:+.3f}",
                                r["magnitude"],
                            ]
                        )
                lines.extend(
                    _table(["metric", f"mean {a}", f"mean {b}", "diff", "delta", "magnitude"], sub)
                )
        lines.append("")
    return "\n".join(lines)


def _table(head: list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*head), fmt.format(*("-" * w for w in widths))] + [
        fmt.format(*r) for r in body
    ]


def compare(
    a: Annotated[str | None, typer.Option("--a", help="System A, as Table 1 names it (e.g. SEA)")] = None,
    b: Annotated[str | None, typer.Option("--b", help="System B, as Table 1 names it (e.g. Human)")] = None,
    run: Annotated[Path, typer.Option("--run", help="Run folder or its results.jsonl")] = Path("."),
    runs: Annotated[
        tuple[Path, Path] | None,
        typer.Option("--runs", help="Two run folders of the same systems (two judges or protocols): "
                     "per-review Spearman/Pearson, mean difference B-A with CI, rankings preserved"),
    ] = None,
    dimension: Annotated[
        str | None, typer.Option("--dimension", help="Only this dimension")
    ] = None,
    venue: Annotated[str | None, typer.Option("--venue", help="Only this venue")] = None,
    metric: Annotated[
        list[str] | None, typer.Option("--metric", help="Only these metrics (repeatable)")
    ] = None,
    by: Annotated[str | None, typer.Option("--by", help="Subgroup view: decision | tier")] = None,
    compat: Annotated[
        bool,
        typer.Option(
            "--compat", help="Reference subgroups (null rating = 0, no decision = reject)"
        ),
    ] = False,
    n_bootstrap: Annotated[int, typer.Option("--n-bootstrap", min=1)] = 10_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full result as JSON")] = False,
) -> None:
    """Paired comparison of two systems per metric: difference, CI, Holm p, Cliff's delta;
    with --runs A B, the agreement of two runs of the same systems."""
    from prism_review.pipelines.results import ResultsLogError, read_results

    if runs is not None:
        _compare_runs(runs, dimension, venue, metric, n_bootstrap, as_json)
        return
    if a is None or b is None:
        typer.echo("error: give --a and --b (two systems of one run), or --runs A B (two runs)", err=True)
        raise typer.Exit(2)
    if by not in (None, "decision", "tier"):
        typer.echo("error: --by must be decision or tier", err=True)
        raise typer.Exit(2)
    try:
        rows = read_results(run)
    except (FileNotFoundError, ResultsLogError) as exc:  # no log, or a damaged line in it
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    _check_name("dimension", dimension, {r.dimension for r in rows}, run)
    _check_name("venue", venue, {r.venue for r in rows}, run)
    every = rows
    rows = [
        r
        for r in rows
        if (dimension is None or r.dimension == dimension) and (venue is None or r.venue == venue)
    ]
    if not rows:
        typer.echo(f"error: no result rows of --dimension {dimension} in --venue {venue}", err=True)
        raise typer.Exit(1)
    _check_metrics(rows, metric)
    from prism_review.pipelines.pairing import UnknownGroup

    try:
        from prism_review.report.judge_card import run_manifest

        result = compare_rows(
            rows, a, b, metrics=metric or None, compat=compat, n_bootstrap=n_bootstrap,
            manifest=run_manifest(run),
        )
    except UnknownGroup as exc:
        typer.echo(f"error: {exc}{_elsewhere(exc.name, every, rows)}", err=True)
        raise typer.Exit(2) from exc
    if result["group_a"] == result["group_b"]:  # in the JSON object itself under --json
        result["warning"] = (f"--a and --b both name {result['a']}: a system compared with "
                             "itself differs by 0 on every metric")
        if not as_json:
            typer.echo(f"warning: {result['warning']}", err=True)
    if as_json:
        typer.echo(json.dumps(result, sort_keys=True))
    else:
        typer.echo(render(result, by))


def _check_name(kind: str, name: str | None, valid: set[str], run: Path) -> None:
    """An unknown --dimension or --venue exits 2 naming the run's valid ones, closest first."""
    from prism_review.names import UnknownNameError

    if name is not None and name not in valid:
        typer.echo(f"error: {UnknownNameError(kind, name, valid, where=str(run))}", err=True)
        raise typer.Exit(2)


def _elsewhere(name: str, every: list[ResultRow], rows: list[ResultRow]) -> str:
    """When --dimension/--venue hid a system the run has, say where it does have rows."""
    from prism_review.pipelines import pairing

    if len(every) == len(rows):
        return ""
    dims = {d: _dimension(d) for d in {r.dimension for r in every}}
    where = sorted({r.dimension for r in every if r.status == "ok" and
                    pairing.group_name(pairing.group_of(dims[r.dimension], r) or "").lower()
                    == name.strip().lower()})
    return f" (in the rows selected; {name} has rows in: {', '.join(where)})" if where else ""


def _compare_runs(runs: tuple[Path, Path], dimension: str | None, venue: str | None,
                  metric: list[str] | None, n_bootstrap: int, as_json: bool) -> None:
    from prism_review.cli.compare_runs import compare_run_folders

    compare_run_folders(runs, dimension=dimension, venue=venue, metric=metric, n_bootstrap=n_bootstrap,
                        as_json=as_json, metric_keys=_metric_keys, dimension_of=_dimension,
                        check_metrics=_check_metrics)


def register(app: typer.Typer) -> None:
    """Mount ``prism compare``."""
    app.command("compare")(compare)

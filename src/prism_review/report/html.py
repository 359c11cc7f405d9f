"""The browsable HTML report of a run (one self-contained file, figures embedded)."""

from __future__ import annotations

import html as _html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from prism_review.atomic import write_text
from prism_review.dimensions.base import Dimension, ResultRow
from prism_review.pipelines.pairing import group_names
from prism_review.pipelines.summary import (
    SummaryRow,
    headline_specs,
    system_label,
    system_order,
    table,
)
from prism_review.report.fidelity import run_note
from prism_review.report.figures import distributions, headline_bars
from prism_review.report.judge_card import MARKERS, column_classes, judge_of, run_card, table_marks
from prism_review.systems.registry import HUMAN

MAX_BROWSE_PAPERS = 200


def html_table(header: list[str], body: list[list[str]]) -> Markup:
    """A table in a box that scrolls sideways when it is wider than the page."""
    h = "".join(f"<th>{_html.escape(c)}</th>" for c in header)
    b = "".join("<tr>" + "".join(_td(c) for c in row) + "</tr>" for row in body)
    return Markup(f'<div class="tbl"><table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table></div>')


def _td(cell: str) -> str:
    """A cell; one carrying a judge-card marker (ranking only, not informative) is greyed."""
    weak = any(cell.endswith(m) for m in MARKERS.values())
    return f'<td class="card-weak">{_html.escape(cell)}</td>' if weak else f"<td>{_html.escape(cell)}</td>"


def json_island(value: Any) -> Markup:
    """``value`` as JSON safe inside ``<script type="application/json">`` (no ``</script>``)."""
    text = json.dumps(value, ensure_ascii=False, indent=1)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def not_scored(rows: list[ResultRow]) -> list[dict[str, Any]]:
    """Rows that are not ``ok`` (excluded from the means), for the list the header links to."""
    return [
        {"dimension": r.dimension, "paper": f"{r.venue}/{r.paper_id}", "system": r.system,
         "reviewer_id": r.reviewer_id, "status": r.status, "error": r.error or ""}
        for r in rows if r.status != "ok"
    ]  # fmt: skip


def _fmt(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def comparisons(rows: list[ResultRow], dims: list[Dimension],
                classes: dict[str, dict[str, str]] | None = None, judge: str = "?") -> Markup | None:
    """Each system vs Human, paired by paper, one Holm family per system and dimension
    (:mod:`prism_review.pipelines.family`, the same families and p-values as ``prism compare``)."""
    from prism_review.pipelines.family import compare_pair
    from prism_review.report.judge_card import SHORT, no_finding_line

    header = ["System", "Dimension", "Metric", "n pairs", "Human", "System", "Diff", "95% CI", "p (Holm)",
              "Cliff's δ", "Card"]
    body: list[list[str]] = []
    no_finding: list[str] = []
    by_dim = {d.name: [r for r in rows if r.dimension == d.name] for d in dims}
    names = {d.name: group_names(by_dim[d.name], {d.name: d}) for d in dims}
    systems = system_order({g for n in names.values() for g in n.values()})
    for system in systems:
        if system == HUMAN:
            continue
        for d in dims:
            if system not in names[d.name].values() or HUMAN not in names[d.name].values():
                continue
            res = compare_pair(by_dim[d.name], d, system, HUMAN, classes=(classes or {}).get(d.name))
            if not res["n_papers"]:  # no paper has both (e.g. a panel-reference group): nothing to show
                continue
            labels = {s.key: s.label for s in d.metrics}
            no_finding += [f"{d.name}.{m}" for m in res["summary"]["no_finding"] if f"{d.name}.{m}" not in no_finding]
            for key in res["metrics"]:
                r = res["per_metric"][key]
                label = labels.get(key, key)
                card = SHORT.get(r["card_class"], "unmeasured")
                if r.get("skipped"):  # the means still show; only the test needs 10 pairs
                    body.append([system_label(system), d.name, label, str(r["n_valid_pairs"]),
                                 _fmt(r.get("mean_b")), _fmt(r.get("mean_a")), _fmt(r.get("mean_diff")),
                                 "", "not tested (< 10 pairs)", "", card])
                    continue
                ci = r["bootstrap_95ci"]
                body.append(
                    [
                        system_label(system),
                        d.name,
                        label,
                        str(r["n_valid_pairs"]),
                        _fmt(r["mean_b"]),
                        _fmt(r["mean_a"]),
                        _fmt(r["mean_diff"]),
                        f"[{_fmt(ci['ci_lower'])}, {_fmt(ci['ci_upper'])}]",
                        _fmt(r["adjusted_p"]) + (" *" if r["significant_after_correction"] else ""),
                        f"{_fmt(r['cliffs_delta'])} ({r['cliffs_delta_magnitude']})",
                        card,
                    ]
                )
    if not body:
        return None
    note = f'<p class="meta">{_html.escape(no_finding_line(judge, no_finding))}</p>' if no_finding else ""
    return Markup(html_table(header, body) + Markup(note))


def write_html(
    out: Path,
    rows: list[ResultRow],
    summary: list[SummaryRow],
    dims: list[Dimension],
    manifest: dict[str, Any],
    texts: dict[tuple[str, str, str, str], str] | None = None,
) -> Path:
    """Write ``report.html``; ``texts`` (the review texts, see :mod:`prism_review.report.reviews`)
    are read from the run's data when not given."""
    env = Environment(
        loader=PackageLoader("prism_review.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )
    tpl = env.get_template("report.html.j2")
    pooled = [r for r in summary if r.venue == "ALL"]
    marks = table_marks(manifest)
    dim_tables = [(d.label, html_table(*table(pooled, [d], headline_only=False, marks=marks))) for d in dims]
    venues = sorted({r.venue for r in summary if r.venue != "ALL"})
    venue_tables = [(v, html_table(*table(summary, dims, venue=v, headline_only=True, marks=marks)))
                    for v in venues]
    papers: dict[tuple[str, str], list[ResultRow]] = defaultdict(list)
    for r in rows:
        papers[(r.venue, r.paper_id)].append(r)
    heads = {d.name: headline_specs(d) for d in dims}
    rank = {s: i for i, s in enumerate(system_order(r.system for r in rows))}
    browse = []
    n_item = 0
    shown = list(papers.items())[:MAX_BROWSE_PAPERS]
    texts_note = ""
    if texts is None:
        from prism_review.report.reviews import review_texts

        texts, texts_note = review_texts(manifest, [k for k, _ in shown])
    text_ids: dict[tuple[str, str, str, str], str] = {}  # one island per review, not per row
    for (venue, pid), prow in shown:
        items = []
        for r in sorted(prow, key=lambda x: (x.dimension, rank[x.system], x.reviewer_id)):
            n_item += 1
            tkey = (venue, pid, r.system, r.reviewer_id)
            if tkey in texts and tkey not in text_ids:
                text_ids[tkey] = f"t{len(text_ids) + 1}"
            headline = " ".join(f"{s.label}={_fmt(r.metrics.get(s.key))}" for s in heads.get(r.dimension, []))
            items.append(
                {
                    "dimension": r.dimension,
                    "system": r.system,
                    "reviewer_id": r.reviewer_id,
                    "pairing": r.pairing,
                    "status": r.status,
                    "headline": headline,
                    "metrics": [(k, _fmt(v)) for k, v in r.metrics.items()],
                    "error": r.error,
                    "key": " ".join(str(x) for x in (r.system, r.reviewer_id, r.pairing) if x).lower(),
                    "xid": f"x{n_item}",  # the full extraction, rendered when the row is opened
                    "extracted": json_island(r.extracted),
                    "tid": text_ids.get(tkey),
                    "n_chars": len(texts.get(tkey, "")),
                }
            )
        decision = prow[0].meta.get("decision") if prow else None
        title = next((str(r.meta["title"]) for r in prow if r.meta.get("title")), "")
        browse.append(
            {"venue": venue, "paper_id": pid, "title": title, "decision": decision, "rows": items,
             "key": f"{venue}/{pid} {title}".lower()}
        )  # fmt: skip
    unscored = not_scored(rows)
    judge = manifest.get("judge", {})
    page = tpl.render(
        title=str(out),
        judge=judge.get("judge") or judge.get("name") or manifest.get("judge_spec", "?"),
        mode="compat" if manifest.get("compat") else "clean",
        version=manifest.get("version", "?"),
        data=manifest.get("data", "?"),
        config_hash=manifest.get("config_hash", "?"),
        n_rows=len(rows),
        n_papers=len(papers),
        n_unscored=sum(1 for r in rows if r.status == "unscored"),
        n_not_ok=len(unscored),
        not_scored=unscored,
        table1=html_table(*table(pooled, dims, headline_only=True, marks=marks)),
        fidelity_note=run_note(manifest, dims),
        bars=headline_bars(summary, dims, out, marks),
        dists=distributions(rows, dims, out, marks),
        dim_tables=dim_tables,
        venue_tables=venue_tables,
        comparisons=comparisons(rows, dims, column_classes(run_card(manifest), [d.name for d in dims]),
                                judge_of(manifest)),
        browse=browse,
        browse_truncated=len(papers) > MAX_BROWSE_PAPERS,
        review_texts=[(tid, json_island(texts[k])) for k, tid in text_ids.items()],
        texts_note=texts_note,
        skipped=[str(s) for s in manifest.get("inputs_skipped") or []],
    )
    return write_text(out / "report.html", page)

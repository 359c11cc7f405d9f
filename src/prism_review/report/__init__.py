"""Reports built from a run's results log: summary tables, figures and a browsable HTML page.

Reports never recompute a judge step: they read ``results.jsonl`` and ``manifest.json``, and
the drill-down's review texts from the run's data when it is still there
(:mod:`prism_review.report.reviews`; the report says when it is not).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prism_review.dimensions.base import Dimension, get_dimension
from prism_review.pipelines.results import read_results
from prism_review.pipelines.summary import SummaryRow, summarize, table, write_csv, write_markdown
from prism_review.report.fidelity import run_note
from prism_review.report.judge_card import table_marks


@dataclass
class RunReport:
    """What :func:`write_run_outputs` wrote: the markdown summary and the tables behind it."""

    markdown: str
    summary: list[SummaryRow]
    dims: list[Dimension]
    manifest: dict[str, Any]

    def tables(self, *, by_venue: bool = False) -> list[tuple[str, list[str], list[list[str]]]]:
        """(title, header, body) of Table 1, then one per venue when ``by_venue``; cells carry
        the judge card's class marker (:func:`prism_review.report.judge_card.table_marks`)."""
        marks = table_marks(self.manifest)
        out = [("Table 1 (all venues)", *table(self.summary, self.dims, headline_only=True, marks=marks))]
        if by_venue:
            for v in sorted({r.venue for r in self.summary if r.venue != "ALL"}):
                out.append((v, *table(self.summary, self.dims, venue=v, headline_only=True, marks=marks)))
        return out


def run_dimensions(manifest: dict, rows_dims: set[str], missing: list[str] | None = None) -> list[Dimension]:
    """The registered dimensions of a run; names that are not registered (a plug-in that is not
    installed here) are appended to ``missing`` so the report can say what it left out."""
    names = list(manifest.get("dimensions", {})) or sorted(rows_dims)
    dims = []
    for n in names:
        try:
            dims.append(get_dimension(n))
        except KeyError:
            if missing is not None:
                missing.append(n)
    return dims


def _notes(rows: list[Any], missing: list[str], dims: list[Dimension] | None = None) -> list[str]:
    """What the tables do not show: rows that are not ``ok`` (counted per dimension, system and
    status), each dimension's own notes, and dimensions that could not be rendered."""
    counts: dict[tuple[str, str, str], int] = {}
    for r in rows:
        if r.status != "ok":
            key = (r.dimension, r.system, r.status)
            counts[key] = counts.get(key, 0) + 1
    notes = [f"{d} · {sy}: {n} {st} row(s), excluded from the means" for (d, sy, st), n in sorted(counts.items())]
    for dim in dims or []:
        notes += dim.summary_notes([r for r in rows if r.dimension == dim.name])
    notes += [f"dimension {m!r}: not registered in this installation, its rows are not shown" for m in missing]
    return notes


def _skip_notes(manifest: dict[str, Any]) -> list[str]:
    """The report header's "N inputs skipped" line and the first skipped inputs."""
    skipped = [str(s) for s in manifest.get("inputs_skipped") or []]
    if not skipped:
        return []
    head = [f"{len(skipped)} inputs skipped (all listed in errors.jsonl)"]
    return head + [f"skipped: {s}" for s in skipped[:50]]


def write_run_outputs(out: Path, *, by_venue: bool = False, html: bool = True,
                      card: Path | None = None) -> RunReport:
    """Write summary.csv, summary.md (and report.html) for a run folder; ``card``: the judge card
    to read (``prism report --card``), kept in the manifest for later re-renders."""
    out = Path(out)
    manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else {}
    if manifest and card is not None:
        manifest["card_file"] = str(card)
    rows = read_results(out)
    missing: list[str] = []
    dims = run_dimensions(manifest, {r.dimension for r in rows}, missing)
    if manifest:  # which card vouches for each Table-1 column, and what it says
        from prism_review.atomic import write_text
        from prism_review.report.judge_card import manifest_card

        manifest["judge_card"] = manifest_card(manifest, dims)
        write_text(out / "manifest.json", json.dumps(manifest, indent=2, default=str))
    summary = summarize(rows, dims, by_venue=False)
    if by_venue:
        summary += summarize(rows, dims, by_venue=True)
    judge = (manifest.get("judge") or {}).get("judge") if manifest else None
    write_csv(summary, out / "summary.csv", mode="compat" if manifest.get("compat") else "clean",
              judge=str(judge) if judge is not None else None)
    text = write_markdown(summary, dims, out / "summary.md", manifest=manifest,
                          notes=_skip_notes(manifest) + _notes(rows, missing, dims),
                          table1_note=run_note(manifest, dims), marks=table_marks(manifest))
    if html:
        from prism_review.report.html import write_html

        write_html(out, rows, summary, dims, manifest)
    return RunReport(markdown=text, summary=summary, dims=dims, manifest=manifest)


__all__ = ["RunReport", "write_run_outputs"]

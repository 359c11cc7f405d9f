"""Reports built from a run's results log: summary tables, figures and a browsable HTML page.

Reports never recompute a judge step: they read ``results.jsonl`` and ``manifest.json`` only.
"""

from __future__ import annotations

import json
from pathlib import Path

from prism_review.dimensions.base import Dimension, get_dimension
from prism_review.pipelines.results import read_results
from prism_review.pipelines.summary import summarize, write_csv, write_markdown


def run_dimensions(manifest: dict, rows_dims: set[str]) -> list[Dimension]:
    names = list(manifest.get("dimensions", {})) or sorted(rows_dims)
    dims = []
    for n in names:
        try:
            dims.append(get_dimension(n))
        except KeyError:
            continue
    return dims


def write_run_outputs(out: Path, *, by_venue: bool = False, html: bool = True) -> str:
    """Write summary.csv, summary.md (and report.html) for a run folder; return the markdown."""
    out = Path(out)
    manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else {}
    rows = read_results(out)
    dims = run_dimensions(manifest, {r.dimension for r in rows})
    summary = summarize(rows, dims, by_venue=False)
    if by_venue:
        summary += summarize(rows, dims, by_venue=True)
    write_csv(summary, out / "summary.csv")
    text = write_markdown(summary, dims, out / "summary.md", manifest=manifest)
    if html:
        from prism_review.report.html import write_html

        write_html(out, rows, summary, dims, manifest)
    return text


__all__ = ["write_run_outputs"]

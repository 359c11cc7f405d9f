"""Figures for the report (matplotlib, Agg backend): headline means with sd bars, distributions.

Every figure has a legend, keeps its error bars inside the metric's range (the Table-1 metrics
are all in [0, 1]), prints n (papers) per bar, and is also saved as PNG and SVG next to the
report (:func:`save`), so it can go into a paper or slides as it is.
"""

from __future__ import annotations

import base64
import io
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prism_review.dimensions.base import Dimension, ResultRow
from prism_review.pipelines.summary import (
    SummaryRow,
    headline_specs,
    per_paper_values,
    system_label,
    system_order,
)
from prism_review.report.card_model import MARKERS, SHORT

#: the range of each Table-1 metric (error bars are clipped to it)
METRIC_RANGES: dict[str, tuple[float, float]] = {
    k: (0.0, 1.0)
    for k in ("doa", "ns", "sr", "ssr", "critical_recall", "minor_recall", "ncps", "mcs", "has_claim")
}
HUMAN_COLOR, SYSTEM_COLOR = "#4c72b0", "#dd8452"


#: panels per row: three 3.2-inch panels at the PNG's 110 dpi are about 1,060 px wide, so the
#: report (at most 1,168 px of content) shows the figure at its own size, its 8-point text legible
GRID_COLUMNS = 3
PANEL_INCHES = (3.2, 3.1)


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, editable, sharp
    return plt


def grid(n: int) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels in rows of :data:`GRID_COLUMNS` (spare cells hidden)."""
    plt = _plt()
    cols = min(GRID_COLUMNS, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_INCHES[0] * cols, PANEL_INCHES[1] * rows + 0.6),
                             squeeze=False)  # fmt: skip
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def save(fig: Any, out: Path | None, stem: str) -> str:
    """Write ``<stem>.png`` and ``<stem>.svg`` into ``out`` (when given); return the PNG as
    base64 for embedding in the report."""
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    if out is not None:
        (out / f"{stem}.png").write_bytes(buf.getvalue())
        fig.savefig(out / f"{stem}.svg", format="svg", bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _tight(fig: Any) -> None:
    """Lay the panels out above the legend, which takes the figure's bottom 0.6 inch."""
    fig.tight_layout(rect=(0, 0.6 / fig.get_figheight(), 1, 1))


def _mark_key(marks: Mapping[tuple[str, str], str] | None) -> str:
    """What the markers in the panel titles mean ("": none used)."""
    used = set((marks or {}).values())
    keys = [f"{m} {SHORT[c]}" for c, m in MARKERS.items() if m in used]
    return "\n" + " · ".join(keys) + " (the judge's card)" if keys else ""


def clipped_errors(mean: float, sd: float, lo: float, hi: float) -> tuple[float, float]:
    """(below, above) error-bar lengths of mean ± sd, cut at the range [lo, hi]."""
    return max(0.0, mean - max(lo, mean - sd)), max(0.0, min(hi, mean + sd) - mean)


def headline_bars(summary: list[SummaryRow], dims: list[Dimension], out: Path | None = None,
                  marks: Mapping[tuple[str, str], str] | None = None) -> str | None:
    """One panel per headline metric: mean ± sd per system, n above each bar; a panel's title
    carries its column's judge-card marker, as the table cells do (``marks``, see
    :func:`prism_review.report.judge_card.table_marks`). Base64 PNG or None."""
    from matplotlib.patches import Patch

    specs = [(d, s) for d in dims for s in headline_specs(d)]
    cells = {(r.dimension, r.metric, r.system): r for r in summary if r.venue == "ALL" and r.mean is not None}
    specs = [(d, s) for d, s in specs if any(k[:2] == (d.name, s.key) for k in cells)]
    if not specs:
        return None
    fig, axes = grid(len(specs))
    for ax, (d, s) in zip(axes, specs, strict=True):
        systems = system_order(k[2] for k in cells if k[:2] == (d.name, s.key))
        rows = [cells[(d.name, s.key, sy)] for sy in systems]
        means = [float(r.mean or 0.0) for r in rows]
        lo, hi = METRIC_RANGES.get(s.key, (float("-inf"), float("inf")))
        errs = [clipped_errors(m, r.sd or 0.0, lo, hi) for m, r in zip(means, rows, strict=True)]
        colors = [HUMAN_COLOR if sy.startswith("human") else SYSTEM_COLOR for sy in systems]
        x = range(len(systems))
        ax.bar(x, means, yerr=[[e[0] for e in errs], [e[1] for e in errs]], color=colors, capsize=3)
        for i, (m, e, r) in enumerate(zip(means, errs, rows, strict=True)):
            ax.text(i, m + e[1], f"n={r.n}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(x))
        ax.set_xticklabels([system_label(sy) for sy in systems], rotation=45, ha="right", fontsize=8)
        ax.set_title(s.label + (marks or {}).get((d.name, s.key), ""), fontsize=10)
        ax.set_ylabel(f"{s.label}, mean over papers", fontsize=8)
        ax.tick_params(axis="y", labelsize=8)
        top = hi if hi != float("inf") else max(m + e[1] for m, e in zip(means, errs, strict=True))
        ax.set_ylim(bottom=max(0.0, lo) if lo != float("-inf") else None, top=top * 1.12 or 1.0)
    fig.legend(
        handles=[Patch(color=HUMAN_COLOR, label="human: mean over papers"),
                 Patch(color=SYSTEM_COLOR, label="system: mean over papers")],
        loc="lower center", ncol=2, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.02),
        title="whiskers: ± 1 sd, cut at the metric's range; n = papers" + _mark_key(marks), title_fontsize=8,
    )  # fmt: skip
    _tight(fig)
    return save(fig, out, "fig_headline")


def distributions(rows: list[ResultRow], dims: list[Dimension], out: Path | None = None,
                  marks: Mapping[tuple[str, str], str] | None = None) -> str | None:
    """Per-paper distributions (box plots) of each headline metric, per system (titles marked
    as in :func:`headline_bars`)."""
    from matplotlib.lines import Line2D

    panels = []
    for d in dims:
        for s in headline_specs(d):
            groups = per_paper_values([r for r in rows if r.dimension == d.name], d, s.key, False)
            data = defaultdict(list)
            for (_, system), papers in groups.items():
                if papers:
                    data[system] = list(papers.values())
            if data:
                panels.append((s.label, (marks or {}).get((d.name, s.key), ""), data))
    if not panels:
        return None
    fig, axes = grid(len(panels))
    for ax, (label, mark, data) in zip(axes, panels, strict=True):
        systems = system_order(data)
        ax.boxplot([data[s] for s in systems], showmeans=True)
        ax.set_xticks(range(1, len(systems) + 1))
        ax.set_xticklabels(
            [f"{system_label(x)} (n={len(data[x])})" for x in systems], rotation=45, ha="right",
            fontsize=8,
        )  # fmt: skip
        ax.set_title(label + mark, fontsize=10)
        ax.set_ylabel(f"{label}, per paper", fontsize=8)
        ax.tick_params(axis="y", labelsize=8)
    fig.legend(
        handles=[Line2D([], [], color="#ff7f0e", label="median"),
                 Line2D([], [], marker="^", color="#2ca02c", linestyle="", label="mean"),
                 Line2D([], [], marker="o", color="black", fillstyle="none", linestyle="",
                        label="outlier (beyond 1.5 IQR)")],
        loc="lower center", ncol=3, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.02),
        title="box: middle half of the papers; n = papers" + _mark_key(marks), title_fontsize=8,
    )  # fmt: skip
    _tight(fig)
    return save(fig, out, "fig_distributions")

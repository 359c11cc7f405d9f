"""Figures for the report (matplotlib, Agg backend): headline means with sd bars, distributions."""

from __future__ import annotations

import base64
import io
from collections import defaultdict

from prism_review.dimensions.base import Dimension, ResultRow
from prism_review.pipelines.summary import (
    SummaryRow,
    headline_specs,
    per_paper_values,
    system_label,
    system_order,
)


def _png(fig) -> str:  # type: ignore[no-untyped-def]
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def headline_bars(summary: list[SummaryRow], dims: list[Dimension]) -> str | None:
    """One panel per headline metric: mean ± sd per system. Returns base64 PNG or None."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = [(d, s) for d in dims for s in headline_specs(d)]
    cells = {(r.dimension, r.metric, r.system): r for r in summary if r.venue == "ALL"}
    specs = [(d, s) for d, s in specs if any(k[:2] == (d.name, s.key) for k in cells)]
    if not specs:
        return None
    fig, axes = plt.subplots(1, len(specs), figsize=(3.2 * len(specs), 3.2), squeeze=False)
    for ax, (d, s) in zip(axes[0], specs, strict=True):
        systems = system_order(k[2] for k in cells if k[:2] == (d.name, s.key))
        rows = [cells[(d.name, s.key, sy)] for sy in systems]
        means = [r.mean if r.mean is not None else 0.0 for r in rows]
        sds = [r.sd or 0.0 for r in rows]
        colors = ["#4c72b0" if sy == "human" else "#dd8452" for sy in systems]
        ax.bar(range(len(systems)), means, yerr=sds, color=colors, capsize=3)
        ax.set_xticks(range(len(systems)))
        ax.set_xticklabels([system_label(x) for x in systems], rotation=45, ha="right", fontsize=8)
        ax.set_title(s.label, fontsize=10)
        ax.set_ylim(bottom=0)
    fig.tight_layout()
    return _png(fig)


def distributions(rows: list[ResultRow], dims: list[Dimension]) -> str | None:
    """Per-paper distributions (box plots) of each headline metric, per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []
    for d in dims:
        for s in headline_specs(d):
            groups = per_paper_values([r for r in rows if r.dimension == d.name], d, s.key, False)
            data = defaultdict(list)
            for (_, system), papers in groups.items():
                data[system] = list(papers.values())
            if data:
                panels.append((s.label, data))
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.2), squeeze=False)
    for ax, (label, data) in zip(axes[0], panels, strict=True):
        systems = system_order(data)
        ax.boxplot([data[s] for s in systems], showmeans=True)
        ax.set_xticks(range(1, len(systems) + 1))
        ax.set_xticklabels([system_label(x) for x in systems], rotation=45, ha="right", fontsize=8)
        ax.set_title(label, fontsize=10)
    fig.tight_layout()
    return _png(fig)

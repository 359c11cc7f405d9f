"""The text printed under Table 1 so that the first run explains itself: what each row and
column is, what ``–`` means, which judge made the numbers, and where to look next."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review.pipelines.summary import SummaryRow, headline_specs


def _column_notes(present: set[str]) -> list[str]:
    """What the Table-1 columns of the registered dimensions in ``present`` measure, in their
    order (``Dimension.table1_note``, else the columns' labels)."""
    from prism_review.dimensions.base import dimension_names, get_dimension

    out = []
    for name in dimension_names():
        if name in present:
            dim = get_dimension(name)
            out.append(dim.table1_note or " / ".join(s.label for s in headline_specs(dim)))
    return [n for n in out if n]


def _row_lines(groups: set[str]) -> list[str]:
    from prism_review.dimensions.flaws import HUMAN_ONLY_GROUP, PANEL_GROUP_SUFFIX

    out = ["rows     one per reviewer system, named by its id (as in results.jsonl and --system)"]
    if "human" in groups:
        out.append(
            "         human: the papers' human reviewers (per paper, the mean over its reviewers)"
        )
    others = sorted(g for g in groups if g != "human" and g != HUMAN_ONLY_GROUP and "@" not in g)
    if others:
        out.append(f"         {', '.join(others)}: LLM or bring-your-own reviewer systems")
    if HUMAN_ONLY_GROUP in groups:
        out.append(
            f"         {HUMAN_ONLY_GROUP}: flaws only; the human reviews scored against flaws "
            "found by humans alone (the human row pools each LLM's review with them)"
        )
    panels = sorted(g for g in groups if g.endswith(PANEL_GROUP_SUFFIX))
    if panels:
        out.append(
            f"         {', '.join(panels)}: flaws of papers without a human review, scored "
            "against the other systems' reviews; kept apart from the system's own row"
        )
    return out


def _judge_line(manifest: dict[str, Any]) -> str:
    judge = manifest.get("judge") or {}
    name = str(judge.get("judge") or judge.get("name") or manifest.get("judge_spec") or "?")
    mode = "compat (the original PRISM code's behaviour)" if manifest.get("compat") else "clean"
    if name == "offline":
        what = (
            "the built-in offline judge (no LLM: models trained on human labels; "
            "`prism agreement` measures them against held-out labels)"
        )
    else:
        what = f"LLM judge {name} (calls and cost in audit.jsonl)"
    return f"judge    {what}; mode {mode}"


def fidelity_lines(manifest: dict[str, Any]) -> list[str]:
    """The judge's fidelity card (is each number on the PRISM paper's scale?), printed right
    under Table 1. Empty until the offline-judge fidelity card is filled in here."""
    return []


def table1_guide(
    summary: list[SummaryRow],
    manifest: dict[str, Any],
    out: Path,
    *,
    html: bool = True,
) -> list[str]:
    """Lines explaining Table 1 of the run in ``out`` and the next commands to try."""
    groups = {r.system for r in summary if r.venue == "ALL" and r.mean is not None}
    notes = _column_notes({r.dimension for r in summary})
    lines = [*fidelity_lines(manifest), "How to read Table 1"]
    lines += _row_lines(groups)
    if notes:
        lines.append("columns  " + notes[0])
        lines += ["         " + n for n in notes[1:]]
    lines += [
        "cells    mean ± sd over papers (n = papers with a value); a paper's value is the mean "
        "over its reviews",
        "–        no value: that system has no scored review for the metric (a dimension not "
        "run, a flaws-only row, or every review unscored); never a 0",
        _judge_line(manifest),
        "Next",
    ]
    if html:
        lines.append(f"  browse every review's extraction and scores: {out / 'report.html'}")
    lines.append(f"  every metric, per dimension: {out / 'summary.md'}")
    from prism_review.dimensions.flaws import HUMAN_ONLY_GROUP

    llm = sorted(g for g in groups if g not in {"human", HUMAN_ONLY_GROUP} and "@" not in g)
    if "human" in groups and llm:
        lines += _compare_hint(summary, out, llm[0])
    return lines


def _compare_hint(summary: list[SummaryRow], out: Path, system: str) -> list[str]:
    """The ``prism compare`` hint, limited to the dimensions where both rows have values (a
    ``--system`` run may hold human rows in flaws only, where humans are pooled with it)."""
    def dims(name: str) -> set[str]:
        return {r.dimension for r in summary if r.venue == "ALL" and r.system == name
                and r.mean is not None}

    shared = sorted(dims(system) & dims("human"))
    if not shared:
        return []
    only = "" if dims(system) <= dims("human") else f" --dimension {shared[0]}"
    return [f"  is a difference real? prism compare --run {out} --a {system} --b human{only}"]

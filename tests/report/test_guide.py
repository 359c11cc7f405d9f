"""The text under Table 1: rows, columns, '–', the judge and the next commands, for the groups
the run has."""

from __future__ import annotations

from pathlib import Path

from prism_review.pipelines.summary import SummaryRow
from prism_review.report.guide import table1_guide


def _row(system: str, dimension: str, metric: str, mean: float | None) -> SummaryRow:
    return SummaryRow(
        dimension=dimension, venue="ALL", system=system, metric=metric, label=metric,
        mean=mean, sd=0.0, n=3,
    )  # fmt: skip


def test_guide_names_the_groups_present_and_the_next_steps() -> None:
    summary = [
        _row("human", "depth", "doa", 0.2),
        _row("gpt4", "depth", "doa", 0.1),
        _row("human-only-bank", "flaws", "ncps", 0.9),
        _row("sea@panel", "flaws", "ncps", 0.5),
        _row("ghost", "depth", "doa", None),  # no value anywhere: not a row of Table 1
    ]
    text = "\n".join(table1_guide(summary, {"judge": {"judge": "offline"}}, Path("runs/x")))
    assert "human: the papers' human reviewers" in text
    assert "gpt4: LLM or bring-your-own" in text and "ghost" not in text
    assert "human-only-bank: flaws only" in text and "sea@panel: flaws of papers without" in text
    assert "DoA = depth of analysis" in text and "MCS" not in text  # only the dimensions run
    assert "–        no value" in text and "never a 0" in text
    assert "built-in offline judge" in text
    assert "runs/x/report.html" in text
    assert "prism compare --run runs/x --a gpt4 --b human" in text


def test_guide_for_an_llm_judge_without_humans_or_html() -> None:
    summary = [_row("sea", "constructiveness", "mcs", 0.3)]
    manifest = {"judge": {"judge": "openai/gpt-4o-mini"}, "compat": True}
    lines = table1_guide(summary, manifest, Path("r"), html=False)
    text = "\n".join(lines)
    assert "LLM judge openai/gpt-4o-mini" in text and "mode compat" in text
    assert "report.html" not in text and "prism compare" not in text  # nothing to pair with


def test_evaluate_eta_follows_the_pace_of_computed_units() -> None:
    from types import SimpleNamespace

    from prism_review.cli.evaluate import _eta

    p = SimpleNamespace(units_total=100, units_done=30, units_skipped=10)
    assert _eta(p, 40.0) == "[bold]ETA[/] 2m20s"  # 20 units in 40 s, 70 left
    assert _eta(SimpleNamespace(units_total=10, units_done=10, units_skipped=0), 5.0).endswith(" 0s")
    assert _eta(SimpleNamespace(units_total=10, units_done=3, units_skipped=3), 5.0).endswith("…")

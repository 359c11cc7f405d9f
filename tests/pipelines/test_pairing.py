"""One pairing for compare, the report and Table 1: flaws' human-only bank and @panel rows are
their own groups, and the names Table 1 shows are the names ``prism compare`` accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import ResultRow, get_dimension
from prism_review.pipelines import pairing
from prism_review.pipelines.summary import summarize, table
from prism_review.report.html import comparisons


def _flaws_row(pid: str, system: str, rid: str, ncps: float, *, pairing_: str | None = None,
               panel: bool = False) -> ResultRow:  # fmt: skip
    return ResultRow(
        dimension="flaws", venue="ICLR2024", paper_id=pid, system=system, reviewer_id=rid,
        unit_key=f"{pid}/{system}/{rid}/{pairing_}", pairing=pairing_,
        metrics={"ncps": ncps, "critical_recall": ncps, "minor_recall": ncps},
        extracted={"reference": "panel" if panel else "human"},
        meta={"decision": "Accept" if pid < "p06" else "Reject"},
    )  # fmt: skip


def flaws_rows() -> tuple[list[ResultRow], dict[str, list[float]]]:
    """12 papers with humans (paired with sea) + 3 papers where sea is scored against a panel.

    The human-only bank rows (pairing None) score humans 0.0 and the panel rows score sea 1.0:
    pooled into "human" / "sea" they would move both means.
    """
    rng = np.random.default_rng(3)
    rows: list[ResultRow] = []
    truth: dict[str, list[float]] = {"human": [], "sea": []}
    for i in range(12):
        pid = f"p{i:02d}"
        h = [round(float(rng.uniform(0.2, 0.5)), 4) for _ in range(2)]
        s = round(float(rng.uniform(0.4, 0.9)), 4)
        truth["human"].append(sum(h) / 2)
        truth["sea"].append(s)
        for k, v in enumerate(h, start=1):
            rows.append(_flaws_row(pid, "human", f"Human_{k}", v, pairing_="sea"))
            rows.append(_flaws_row(pid, "human", f"Human_{k}", 0.0))  # human-only bank
        rows.append(_flaws_row(pid, "sea", "LLM_Reviewer", s, pairing_="sea"))
    for i in range(12, 15):
        rows.append(_flaws_row(f"p{i:02d}", "sea", "LLM_Reviewer", 1.0, panel=True))
    return rows, truth


def _compare(tmp_path: Path, rows: list[ResultRow], *args: str) -> Any:
    (tmp_path / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in rows))
    return CliRunner().invoke(app, ["compare", "--run", str(tmp_path), "--n-bootstrap", "200", *args])


def test_compare_keeps_the_human_only_bank_and_panel_rows_apart(tmp_path: Path) -> None:
    rows, truth = flaws_rows()
    res = _compare(tmp_path, rows, "--a", "sea", "--b", "human", "--json", "--metric", "ncps")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    m = out["dimensions"]["flaws"]["per_metric"]["ncps"]
    assert m["n_valid_pairs"] == 12
    assert m["mean_b"] == round(float(np.mean(truth["human"])), 4)
    assert m["mean_a"] == round(float(np.mean(truth["sea"])), 4)
    assert (out["a"], out["b"]) == ("sea", "human")  # Table-1 names are the ids


def test_compare_means_are_table1_means(tmp_path: Path) -> None:
    """The paired means equal Table 1's when every paper pairs (same groups, same per-paper values)."""
    rows, _ = flaws_rows()
    dim = get_dimension("flaws")
    summary = {(r.system, r.metric): r.mean for r in summarize(rows, [dim])}
    res = _compare(tmp_path, rows, "--a", "SEA", "--b", "Human", "--json", "--metric", "ncps")
    m = json.loads(res.output)["dimensions"]["flaws"]["per_metric"]["ncps"]
    assert m["mean_b"] == round(summary[("human", "ncps")], 4)
    # sea pairs on its 12 human-referenced papers; Table 1's SEA row has the same 12
    assert m["mean_a"] == round(summary[("sea", "ncps")], 4)


def test_every_table1_name_is_accepted_by_compare(tmp_path: Path) -> None:
    rows, _ = flaws_rows()
    dim = get_dimension("flaws")
    _, body = table(summarize(rows, [dim]), [dim], headline_only=True)
    shown = [line[0] for line in body]
    assert sorted(shown) == sorted(["human", "human-only-bank", "sea", "sea@panel"])
    for name in shown:
        res = _compare(tmp_path, rows, "--a", name, "--b", "Human", "--json", "--metric", "ncps")
        assert res.exit_code == 0, (name, res.output)
        assert json.loads(res.output)["a"] == name
    # the human-only bank pairs with Human on the same 12 papers; the panel papers have no human
    res = _compare(tmp_path, rows, "--a", "human-only-bank", "--b", "Human", "--json")
    assert json.loads(res.output)["dimensions"]["flaws"]["n_papers"] == 12
    res = _compare(tmp_path, rows, "--a", "sea@panel", "--b", "Human", "--json")
    assert json.loads(res.output)["dimensions"]["flaws"]["n_papers"] == 0


def test_unknown_name_exits_2_listing_valid_names_closest_first(tmp_path: Path) -> None:
    rows, _ = flaws_rows()
    res = _compare(tmp_path, rows, "--a", "SEA@panl", "--b", "Human")
    assert res.exit_code == 2
    msg = res.output.strip().splitlines()[-1]
    assert "'SEA@panl'" in msg
    listed = msg.split("valid names (as in Table 1): ")[1].split(", ")
    assert listed[0] == "sea@panel"
    assert sorted(listed) == sorted(["human", "human-only-bank", "sea", "sea@panel"])
    # a folder name is not a Table-1 name
    assert _compare(tmp_path, rows, "--a", "human_reviews", "--b", "sea").exit_code == 2


def test_resolve_is_case_insensitive_and_closest_first() -> None:
    names = {"Human": "human", "TreeReview": "treereview", "DeepReview": "deepreview"}
    assert pairing.resolve("treereview", names) == "treereview"
    assert pairing.resolve(" HUMAN ", names) == "human"
    with pytest.raises(pairing.UnknownGroup) as exc:
        pairing.resolve("tree", names)
    assert exc.value.valid[0] == "TreeReview"


def test_report_comparison_uses_the_same_pairs() -> None:
    """The report's SEA-vs-Human nCPS row has compare's pairs: 12, not the 15 papers SEA has."""
    rows, truth = flaws_rows()
    html = str(comparisons(rows, [get_dimension("flaws")]))
    # issue 27: one Holm family per system and dimension, so the row names its dimension
    sea_row = next(r for r in html.split("<tr>") if r.startswith("<td>sea</td><td>flaws</td><td>nCPS</td>"))
    cells = [c.split("</td>")[0] for c in sea_row.split("<td>")[1:]]
    assert cells[3] == "12"
    assert cells[4] == f"{round(float(np.mean(truth['human'])), 4):.4f}"
    assert cells[5] == f"{round(float(np.mean(truth['sea'])), 4):.4f}"
    assert "<td>sea@panel</td>" not in html  # no paper pairs a panel row with a human


def test_summary_md_explains_the_flaws_only_groups(tmp_path: Path) -> None:
    from prism_review.pipelines.summary import write_markdown

    rows, _ = flaws_rows()
    dim = get_dimension("flaws")
    text = write_markdown(summarize(rows, [dim]), [dim], tmp_path / "summary.md", manifest={})
    table1 = text.split("## Table 1")[1].split("\n## ")[0]
    assert "| human-only-bank |" in table1 and "| sea@panel |" in table1
    assert "**human-only-bank**: Flaws only." in table1
    assert "**sea@panel**: Flaws only." in table1
    assert "`prism compare --a NAME --b NAME` accepts the names in the System column" in table1

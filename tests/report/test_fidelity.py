"""The offline judge's fidelity card: the shipped data file, its checks, and where it is shown
(under Table 1 of summary.md and the HTML report, and by ``prism agreement --dataset all``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import get_dimension
from prism_review.pipelines.summary import write_markdown
from prism_review.report.fidelity import (
    CLASSES,
    CardError,
    load_card,
    parse_card,
    run_note,
    table1_columns,
    table1_note,
)

DIMS = ["depth", "novelty", "flaws", "constructiveness"]
ENTRY = {
    "dimension": "constructiveness",
    "metric": "mcs",
    "label": "MCS",
    "class": "ranking_only",
    "figure": "f",
    "command": "c",
    "status": "measured",
    "owner": "constructiveness",
}


def test_shipped_card_covers_every_table1_metric_and_the_subscores() -> None:
    card = load_card()
    dims = [get_dimension(d) for d in DIMS]
    wanted = table1_columns(dims) + [("constructiveness", f"d{i}") for i in range(1, 6)]
    missing = [f"{d}.{m}" for d, m in wanted if card.get(d, m) is None]
    assert not missing, f"fidelity card lacks entries for {missing}"
    for e in card.entries:
        assert e.cls in CLASSES and e.figure and e.command


def test_every_shipped_entry_is_measured_with_its_figure() -> None:
    # a provisional entry prints "[provisional]" under every offline Table 1: the flaws
    # entries were, until the grouped-CV command reproduced the figures they quoted
    card = load_card()
    for e in card.entries:
        assert e.status == "measured", f"{e.dimension}.{e.metric} is {e.status}"
        assert any(ch.isdigit() for ch in e.figure)  # the figure that puts it in its class
        assert "PROVISIONAL" not in e.figure


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"class": "roughly"}, "class 'roughly'"),
        ({"status": "guessed"}, "status 'guessed'"),
        ({"figure": ""}, "figure"),
    ],
)
def test_bad_entries_are_refused_naming_the_entry(change, message) -> None:
    with pytest.raises(CardError, match=r"card.json: entries\[1\].*" + message):
        parse_card({"entries": [ENTRY, {**ENTRY, "metric": "d1", **change}]}, "card.json")


def test_duplicate_entries_are_refused() -> None:
    with pytest.raises(CardError, match="appears twice"):
        parse_card({"entries": [ENTRY, ENTRY]}, "card.json")


def test_note_lists_non_comparable_columns_and_unknown_ones() -> None:
    card = parse_card(
        {"entries": [ENTRY, {**ENTRY, "metric": "d1", "class": "comparable", "label": "D1"}]}
    )
    lines = table1_note([("constructiveness", "mcs"), ("constructiveness", "d1"), ("x", "y")], card)
    text = "\n".join(lines)
    assert "MCS†: ranking only" in text  # issue 27: the label carries its cell marker
    assert "D1" not in text  # comparable columns are not listed
    assert "x.y: no fidelity-card entry" in text
    assert table1_note([("constructiveness", "d1")], card) == []


def _summary(tmp_path: Path, judge: str) -> str:
    dims = [get_dimension(d) for d in DIMS]
    manifest = {"judge": {"judge": judge}}
    return write_markdown([], dims, tmp_path / "summary.md", manifest=manifest,
                          table1_note=run_note(manifest, dims))


def test_summary_md_prints_the_note_under_table1_for_the_offline_judge_only(tmp_path) -> None:
    offline = _summary(tmp_path, "offline")
    table1 = offline.index("## Table 1")
    note = offline.index("Offline judge: these Table-1 columns are not comparable")
    assert table1 < note < offline.index("## Depth")
    assert "- DoA†:" in offline  # DoA is not comparable offline (see the card)
    assert "not comparable" not in _summary(tmp_path, "openai/gpt-4o-mini")


def test_agreement_all_prints_the_card_and_counts_missing_files(tmp_path) -> None:
    res = CliRunner().invoke(app, ["agreement", "--dataset", "all", "--file", str(tmp_path)])
    assert res.exit_code == 1  # every standard file is missing: said, not silently passed
    assert "Fidelity card of the offline judge" in res.stdout
    assert "constructiveness.mcs (MCS)" in res.stdout
    assert "skipped: revutil:" in res.stderr


def test_agreement_all_measures_what_is_there(tmp_path) -> None:
    from prism_review.testing.shared import DATA

    if not (DATA / "labels/revutil/dev.jsonl").is_file():
        pytest.skip("shared RevUtil labels not present")
    src = (DATA / "labels/revutil/dev.jsonl").read_text(encoding="utf-8").split("\n")[:12]
    dest = tmp_path / "labels/revutil/dev.jsonl"
    dest.parent.mkdir(parents=True)
    dest.write_text("\n".join(src) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["agreement", "--dataset", "all", "--file", str(tmp_path), "--json"])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    # 12 records of the trained-on file: in-sample by its records (issue 27; before, only the
    # whole file's hash was known and these figures were shown as agreement), and the held-out
    # figures are the training's out-of-fold ones
    ins = out["in_sample"]["revutil"]
    assert ins["n.points"] == 12 and "(12 of its 12 records are from RevUtil dev" in ins["warning"]
    assert out["held_out"]["revutil"]["protocol"].startswith("out-of-fold")
    assert len(out["skipped"]) == 5  # the other standard files are missing
    assert {e["metric"] for e in out["fidelity_card"]} >= {"mcs", "d1", "doa", "ns"}


def test_html_report_prints_the_note_under_table1_for_the_offline_judge(tmp_path) -> None:
    from prism_review.dimensions.base import ResultRow
    from prism_review.pipelines.summary import summarize
    from prism_review.report.html import write_html

    rows = [
        ResultRow(dimension="constructiveness", venue="ICLR2024", paper_id="p1", system="human",
                  reviewer_id="Human_1", unit_key="p1/Human_1", metrics={"mcs": 0.4})
    ]
    dims = [get_dimension("depth"), get_dimension("constructiveness")]
    offline = write_html(tmp_path, rows, summarize(rows, dims), dims, {"judge": {"judge": "offline"}})
    page = offline.read_text()
    assert "not comparable to the PRISM paper" in page and "<li>DoA†: " in page
    llm = write_html(tmp_path, rows, summarize(rows, dims), dims, {"judge": {"judge": "openai/x"}})
    assert "not comparable to the PRISM paper" not in llm.read_text()


def test_table1_says_which_figures_depend_on_what_else_is_in_the_run(tmp_path) -> None:
    """issue 25: a pooled LLM run says its scores depend on the rest of the run; every run with
    flaws says the human flaws row does by PRISM's definition (human-only-bank does not)."""
    from prism_review.report.fidelity import FLAWS_HUMAN_NOTE, POOLED_NOTE

    dims = [get_dimension(d) for d in DIMS]
    llm = {"judge": {"judge": "openai/gpt-4o-mini"}}
    pooled = write_markdown([], dims, tmp_path / "summary.md", manifest={**llm, "protocol": "pooled"},
                            table1_note=run_note({**llm, "protocol": "pooled"}, dims))
    assert POOLED_NOTE in pooled and pooled.index("## Table 1") < pooled.index(POOLED_NOTE) < pooled.index("## Depth")
    for protocol in ("economical", "reference"):  # issue 27: an LLM run's note opens with its judge card
        note = run_note({**llm, "protocol": protocol}, dims)
        assert note[0].startswith("Judge openai/gpt-4o-mini is unmeasured") and note[-1] == FLAWS_HUMAN_NOTE
        assert POOLED_NOTE not in note
    # the offline judge makes no calls: pooled changes nothing there, so nothing to say
    assert POOLED_NOTE not in run_note({"judge": {"judge": "offline"}, "protocol": "pooled"}, dims)
    assert FLAWS_HUMAN_NOTE in run_note({"judge": {"judge": "offline"}}, dims)
    no_flaws = [get_dimension("depth")]
    assert FLAWS_HUMAN_NOTE not in run_note({**llm, "protocol": "economical"}, no_flaws)
    assert "human-only-bank" in FLAWS_HUMAN_NOTE and FLAWS_HUMAN_NOTE.count("\n") == 0

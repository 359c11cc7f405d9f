"""The other-systems reference panel (``flaws.reference = human_else_panel``) for papers with no
human review: pooling, exact panel ids, one row per evaluated system, and the ``human`` switch."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.dimensions.flaws import FlawsDimension, panel_units, pool
from prism_review.judge.base import OfflineJudge
from prism_review.judge.flaws.models import ConsolidateInput, ConsolidateOutput, ReviewerText
from prism_review.judge.flaws.steps import ConsolidateStep
from prism_review.metrics.cfi import detected_flaws, normalize_reviewer_key
from prism_review.pipelines.runner import EvalOptions, run_evaluation
from prism_review.records import Paper, Review, Section
from prism_review.testing.layout_samples import write_layout

VENUE = "ICLR2024"


def _rev(system: str, weak: str) -> Review:
    return Review(
        paper_id="p",
        venue=VENUE,
        system=system,
        reviewer_id=system,
        sections=[Section(name="Weaknesses", text=weak)] if weak else [],
    )


def _panel_data() -> tuple[Paper, dict[str, list[Review]]]:
    paper = Paper(paper_id="p", venue=VENUE, full_text="A paper about sparse gating. " * 20)
    return paper, {
        "human": [],
        "zeta": [_rev("zeta", "- Only one dataset is used in the evaluation.")],
        "alpha": [_rev("alpha", "- The gating is not motivated.\n- Only one dataset is used.")],
        "empty": [_rev("empty", "")],
        "mid": [_rev("mid", "- The gating lacks motivation.")],
    }


def test_panel_units_pool_the_other_systems_sorted_by_id() -> None:
    paper, reviews = _panel_data()
    dim = get_dimension("flaws")
    units = list(dim.work_units(paper, reviews, ["zeta", "alpha", "empty"]))
    # "empty" has no review text: no unit, and it is no panel member; "mid" is not selected
    # but still sits on the others' panels (the panel does not depend on --system)
    assert [u.key for u in units] == [f"{VENUE}/p/flaws/zeta/panel", f"{VENUE}/p/flaws/alpha/panel"]
    zeta = units[0]
    assert [r.system for r in zeta.reviews] == ["alpha", "mid", "zeta"]
    assert {k: v for k, v in zeta.extra.items() if k != "paper_reviews"} == {"pairing": None, "reference": "panel"}
    # the economical protocol's per-paper pool: every system's review, sorted by id
    assert [r.system for r in zeta.extra["paper_reviews"]] == ["alpha", "empty", "mid", "zeta"]
    assert [(pid, r.system) for pid, r, _ in pool(zeta, compat=False)] == [
        ("Panel_1", "alpha"),
        ("Panel_2", "mid"),
        ("LLM_Reviewer", "zeta"),
    ]


def test_no_panel_without_another_system() -> None:
    paper, reviews = _panel_data()
    only = {"human": [], "alpha": reviews["alpha"], "empty": reviews["empty"]}
    assert list(panel_units(paper, only, ["alpha", "empty"], "b")) == []


async def test_panel_unit_writes_only_the_evaluated_row() -> None:
    paper, reviews = _panel_data()
    dim = get_dimension("flaws")
    unit = next(iter(dim.work_units(paper, reviews, ["alpha"])))
    rows = await dim.evaluate(unit, RunContext(OfflineJudge()))
    assert len(rows) == 1
    row = rows[0]
    assert row.status == "ok" and row.system == "alpha" and row.pairing is None
    ex = row.extracted
    assert ex["reference"] == "panel" and ex["reference_setting"] == "human_else_panel"
    assert ex["panel"] == {"Panel_1": "mid", "Panel_2": "zeta"}
    assert ex["pool_id"] == "LLM_Reviewer" and ex["pool"] == ["Panel_1", "Panel_2", "LLM_Reviewer"]
    keys = {k for f in ex["micro_flaws"] for k in f["raw_arguments"]}
    assert keys <= {"Panel_1", "Panel_2", "LLM_Reviewer"} and not any("Human" in k for k in keys)
    # alpha's motivation and dataset points are each shared with one panel member
    shared = [f for f in ex["micro_flaws"] if len(f["raw_arguments"]) == 2]
    assert len(shared) == 2
    assert FlawsDimension().summary_system(row) == "alpha@panel"


async def test_reference_human_skips_panel_units() -> None:
    paper, reviews = _panel_data()
    dim = get_dimension("flaws")
    unit = next(iter(dim.work_units(paper, reviews, ["alpha"])))
    ctx = RunContext(OfflineJudge(), settings={"flaws.reference": "human"})
    rows = await dim.evaluate(unit, ctx)
    assert [(r.system, r.status, r.metrics) for r in rows] == [("alpha", "skipped", {})]
    with pytest.raises(ValueError, match="flaws.reference"):
        await dim.evaluate(unit, RunContext(OfflineJudge(), settings={"flaws.reference": "x"}))
    assert dim.describe()["reference_default"] == "human_else_panel"


def test_panel_ids_are_exact() -> None:
    assert normalize_reviewer_key(" panel 02 ") == "Panel_2"
    assert normalize_reviewer_key("Panel-1") == "Panel_1"
    assert normalize_reviewer_key("Panelist_1") == "Panelist_1"
    flaws: list[dict[str, Any]] = [
        {"flaw_id": "F1", "raw_arguments": {"Panel_12": "q"}},
        {"flaw_id": "F2", "raw_arguments": {"Panel_1": "q"}},
    ]
    # no substring credit (Panel_1 ⊄ Panel_12), in clean and compat mode alike
    assert detected_flaws(flaws, "Panel_1") == {"F2"}
    assert detected_flaws(flaws, "Panel_1", compat=True) == {"F2"}
    inp = ConsolidateInput(
        reviews=[ReviewerText(reviewer_id=i, text="t") for i in ("Panel_1", "LLM_Reviewer")]
    )
    step = ConsolidateStep()
    out = ConsolidateOutput.model_validate(
        {"micro_flaws": [{"flaw_id": "F1", "raw_arguments": {"panel_1": "q", "Panel_3": "r"}}]}
    )
    msg = step.check(inp, step.finalize(inp, out))
    assert msg is not None and "Panel_3" in msg and "panel_1" not in msg


async def test_layout_pools_humans_where_present_and_the_panel_elsewhere(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    (root / "ICLR2024" / "human_reviews" / "p2.json").unlink()
    res = await run_evaluation(
        EvalOptions(data=root, out=tmp_path / "run", dimensions=["flaws"], report=False)
    )
    from prism_review.pipelines.results import ResultsLog

    rows = ResultsLog(res.out / "results.jsonl").rows()
    assert res.units_failed == 0
    p1 = [r for r in rows if r.paper_id == "p1"]
    p2 = [r for r in rows if r.paper_id == "p2"]
    assert {r.extracted["reference"] for r in p1} == {"human"}
    assert not any(k.startswith("Panel_") for r in p1 for k in r.extracted.get("pool", []))
    assert {r.extracted["reference"] for r in p2} == {"panel"}
    # one ok row per system with a review of p2, each pooled with every other such system
    counts = Counter(r.system for r in p2)
    assert counts and set(counts.values()) == {1} and "human" not in counts
    assert all(r.status == "ok" for r in p2)
    for r in p2:
        panel = r.extracted["panel"]
        assert r.system not in panel.values() and set(panel.values()) == set(counts) - {r.system}
        assert r.metrics["ncps"] is not None or r.metrics["gt_valid"] == 0
    assert res.manifest["dimensions"]["flaws"]["reference_default"] == "human_else_panel"


async def test_demo_scores_the_three_systems_against_human_reviews(tmp_path: Path) -> None:
    # every demo paper has a human review, so no paper falls back to the panel: each RevUtil
    # paper pools its human review with each LLM's, as PRISM does
    res = await run_evaluation(
        EvalOptions(out=tmp_path / "run", dimensions=["flaws"], limit=3, report=False)
    )
    from prism_review.pipelines.results import ResultsLog

    rows = [r for r in ResultsLog(res.out / "results.jsonl").rows() if r.status == "ok"]
    assert rows and all(r.extracted["reference"] == "human" for r in rows)
    llm = [r for r in rows if r.system != "human"]
    papers = {r.paper_id for r in llm}
    assert len(papers) == 2  # the first three ids: NExT-GPT (humans only) and two RevUtil papers
    for pid in papers:
        assert sorted(r.system for r in llm if r.paper_id == pid) == [
            "claude_opus", "gemini_pro_1.5", "gpt4",
        ]  # fmt: skip
        paired = {r.pairing for r in rows if r.paper_id == pid and r.system == "human"}
        assert paired == {"claude_opus", "gemini_pro_1.5", "gpt4", None}  # None: human-only bank
    assert any(r.metrics["critical_recall"] is not None for r in llm)
    assert all(r.metrics["hallucination_rate"] is not None for r in llm)

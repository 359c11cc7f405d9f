"""The flaws dimension end to end with the offline judge (and the unscored path)."""

from __future__ import annotations

from typing import Any

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.base import OfflineJudge, StepResult
from prism_review.records import Paper, Review, Section

from .test_steps_offline import PAPER

VENUE = "ICLR2025"


def _review(system: str, rid: str, weaknesses: str) -> Review:
    return Review(
        paper_id="p1",
        venue=VENUE,
        system=system,
        reviewer_id=rid,
        sections=[
            Section(
                name="Summary", text="The paper proposes a gating module for sparse attention."
            ),
            Section(name="Weaknesses", text=weaknesses),
        ],
    )


def _data() -> tuple[Paper, dict[str, list[Review]]]:
    paper = Paper(paper_id="p1", venue=VENUE, full_text=PAPER)
    humans = [
        _review(
            "human", "r1", "- The gating module in Section 3 is not motivated.\n- Several typos."
        ),
        Review(paper_id="p1", venue=VENUE, system="human", reviewer_id="r2"),  # empty: dropped
        _review("human", "r3", "- The gating module in Section 3 lacks motivation."),
    ]
    sea = _review("sea", "sea", "- Table 1 reports accuracy on only one benchmark.")
    return paper, {"human": humans, "sea": [sea], "reviewer2": []}


def test_work_units_pairings_and_human_only_bank() -> None:
    dim = get_dimension("flaws")
    paper, reviews = _data()
    units = list(dim.work_units(paper, reviews, ["human", "sea", "reviewer2"]))
    assert [u.key for u in units] == ["ICLR2025/p1/flaws/sea", "ICLR2025/p1/flaws/human-only"]
    assert units[0].extra["pairing"] == "sea" and units[1].extra["pairing"] is None
    assert list(dim.work_units(paper, {"human": [], "sea": reviews["sea"]}, ["sea"])) == []


async def test_evaluate_offline_rows() -> None:
    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = next(iter(dim.work_units(paper, reviews, ["human", "sea"])))
    rows = await dim.evaluate(unit, RunContext(OfflineJudge()))
    by_pool = {r.extracted["pool_id"]: r for r in rows}
    assert set(by_pool) == {"Human_1", "Human_3", "LLM_Reviewer"}
    assert by_pool["Human_1"].system == "human" and by_pool["Human_1"].pairing == "sea"
    assert by_pool["LLM_Reviewer"].system == "sea"
    assert all(r.status == "ok" for r in rows)
    # the two humans raise the same motivation flaw: one consensus flaw quoted by both
    shared = [
        f
        for f in rows[0].extracted["micro_flaws"]
        if set(f["raw_arguments"]) == {"Human_1", "Human_3"}
    ]
    assert len(shared) == 1
    llm = by_pool["LLM_Reviewer"].metrics
    assert set(llm) >= {"critical_recall", "minor_recall", "ncps", "hallucination_rate", "cps_norm"}
    assert llm["gt_valid"] == llm["gt_critical"] + llm["gt_minor"]
    # metrics can be recomputed from what the row records
    from prism_review.metrics.cfi import cfi_report

    ex = by_pool["Human_1"].extracted
    rep = cfi_report(ex["micro_flaws"], ex["evaluations"], 3, ["Human_1", "Human_3"])
    again = next(r for r in rep["Reviewer_Rankings"] if r["Reviewer_ID"] == "Human_1")
    assert again["Critical_Recall"] == by_pool["Human_1"].metrics["critical_recall"]
    assert dim.summary_system(by_pool["Human_1"]) == "human"


async def test_human_only_rows_are_summarised_apart() -> None:
    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = list(dim.work_units(paper, reviews, ["human", "sea"]))[1]
    rows = await dim.evaluate(unit, RunContext(OfflineJudge()))
    assert {r.extracted["pool_id"] for r in rows} == {"Human_1", "Human_3"}
    assert all(r.pairing is None and dim.summary_system(r) == "human-only-bank" for r in rows)
    assert "human_aggregation" in dim.describe()


class _Unscoring:
    name = "broken"
    mode = "llm"

    async def run(self, step: Any, inp: Any) -> StepResult[Any]:
        return StepResult(step=step.name, status="unscored", error="bad reply")

    def describe(self) -> dict[str, Any]:
        return {}


async def test_unparseable_step_marks_rows_unscored_not_zero() -> None:
    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = next(iter(dim.work_units(paper, reviews, ["human", "sea"])))
    rows = await dim.evaluate(unit, RunContext(_Unscoring()))  # type: ignore[arg-type]
    assert rows and all(r.status == "unscored" and not r.metrics for r in rows)


async def test_compat_mode_runs_and_is_recorded_in_rows() -> None:
    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = next(iter(dim.work_units(paper, reviews, ["human", "sea"])))
    rows = await dim.evaluate(unit, RunContext(OfflineJudge(), settings={"compat": True}))
    assert rows and all(r.status == "ok" for r in rows)
    # (the compat SEA extractor reads the raw file, which this synthetic review lacks)
    assert {"Human_1", "Human_3"} <= {r.extracted["pool_id"] for r in rows}


async def test_paper_chars_setting_reaches_the_validate_step() -> None:
    seen: list[int] = []

    class Spy(OfflineJudge):
        async def run(self, step, inp):  # type: ignore[no-untyped-def]
            if step.name == "flaws.validate":
                seen.append(inp.max_paper_chars)
            return await super().run(step, inp)

    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = next(iter(dim.work_units(paper, reviews, ["human", "sea"])))
    await dim.evaluate(unit, RunContext(Spy(), settings={"flaws.paper_chars": 1234}))
    assert seen == [1234]

import math

import pytest

from prism_review.dimensions.base import Dimension, MetricSpec, ResultRow
from prism_review.pipelines.summary import describe, summarize, table


class _Dim(Dimension):
    name = "toy"
    label = "Toy"
    metrics = [MetricSpec(key="m", label="M", headline=True)]

    def work_units(self, paper, reviews, systems):  # pragma: no cover - not used
        return []

    async def evaluate(self, unit, ctx):  # pragma: no cover - not used
        return []


def _row(system, paper, reviewer, value, status="ok"):
    return ResultRow(
        dimension="toy", venue="ICLR2024", paper_id=paper, system=system, reviewer_id=reviewer,
        metrics={"m": value}, status=status,
    )


def test_describe_population_sd():
    st = describe([1.0, 2.0, 3.0, 4.0])
    assert st.mean == 2.5 and st.n == 4
    assert st.sd == pytest.approx(math.sqrt(1.25))
    assert describe([]).mean is None


def test_human_per_paper_mean_then_over_papers_nulls_skipped():
    rows = [
        # paper A: humans 0.2 and 0.6 → 0.4 ; paper B: one human 0.8, one null (skipped) → 0.8
        _row("human", "A", "Human_1", 0.2),
        _row("human", "A", "Human_2", 0.6),
        _row("human", "B", "Human_1", 0.8),
        _row("human", "B", "Human_2", None),
        # unscored rows never count, even if they carry a number
        _row("sea", "A", "LLM_Reviewer", 0.9, status="unscored"),
        _row("sea", "B", "LLM_Reviewer", 0.5),
    ]
    out = {(r.system, r.metric): r for r in summarize(rows, [_Dim()])}
    human = out[("human", "m")]
    assert human.mean == pytest.approx(0.6) and human.n == 2
    assert human.sd == pytest.approx(0.2)
    sea = out[("sea", "m")]
    assert sea.mean == pytest.approx(0.5) and sea.n == 1 and sea.sd == 0.0
    header, body = table(summarize(rows, [_Dim()]), [_Dim()], headline_only=True)
    assert header == ["System", "M"]
    assert body[0] == ["human", "0.600 ± 0.200 (2)"]  # the ids of results.jsonl, not labels
    assert body[1] == ["sea", "0.500 ± 0.000 (1)"]


def test_summary_md_says_what_the_tables_leave_out(tmp_path):
    import json

    from prism_review.pipelines.results import ResultsLog
    from prism_review.report import write_run_outputs

    log = ResultsLog(tmp_path / "results.jsonl")
    rows = [
        ResultRow(dimension="depth", venue="ICLR2024", paper_id="A", system="sea", reviewer_id="LLM_Reviewer",
                  unit_key="A/sea", metrics={"doa": 0.5}),
        ResultRow(dimension="depth", venue="ICLR2024", paper_id="B", system="sea", reviewer_id="LLM_Reviewer",
                  unit_key="B/sea", status="unscored", metrics={"doa": None}, error="depth.ground: unparseable"),
        ResultRow(dimension="ghost", venue="ICLR2024", paper_id="A", system="sea", reviewer_id="LLM_Reviewer",
                  unit_key="A/sea/ghost", metrics={"g": 1.0}),
    ]
    for r in rows:
        log.append_unit([r])
    (tmp_path / "manifest.json").write_text(json.dumps({"dimensions": {"depth": {}, "ghost": {}}}))
    text = write_run_outputs(tmp_path, html=False).markdown
    assert "| sea | 0.500 ± 0.000 (1) |" in text  # the mean is over the scored paper only
    assert "depth · sea: 1 unscored row(s), excluded from the means" in text
    assert "dimension 'ghost': not registered in this installation" in text

"""The dimension plug-in and the RevUtil agreement with the offline judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_review.agreement import get_dataset
from prism_review.dimensions.base import RunContext, WorkUnit, get_dimension
from prism_review.dimensions.constructiveness import METRIC_KEYS, metrics_from_arcs
from prism_review.judge.base import OfflineJudge
from prism_review.records import Paper, Review, Section
from prism_review.testing.shared import SHARED

REVUTIL = Path(f"{SHARED}/data/labels/revutil/dev.jsonl")


def _unit(sections: list[Section]) -> WorkUnit:
    review = Review(
        paper_id="p1",
        venue="ICLR2024",
        system="treereview",
        reviewer_id="Tree_LLM",
        sections=sections,
    )
    return WorkUnit(
        key="k",
        venue="ICLR2024",
        paper_id="p1",
        system="treereview",
        paper=Paper(paper_id="p1", venue="ICLR2024"),
        reviews=[review],
        extra={"meta": {"decision": "Reject", "avg_rating": 3.0}},
    )


async def test_offline_row_metrics_and_extracted() -> None:
    dim = get_dimension("constructiveness")
    unit = _unit(
        [
            Section(name="Summary", text="The paper studies retrieval for code models."),
            Section(
                name="Weaknesses",
                text="- The authors should add a comparison with kNN-LM (Khandelwal et al., 2020) in Table 3.\n- Why is the window size fixed?",
            ),
        ]
    )
    (row,) = await dim.evaluate(unit, RunContext(OfflineJudge()))
    assert row.status == "ok"
    assert set(row.metrics) == set(METRIC_KEYS)
    arcs = row.extracted["arcs"]
    assert [a["comment_type"] for a in arcs] == ["observation", "weakness", "question"]
    assert row.metrics["verbatim_rate"] == 1.0
    assert row.metrics["n_arcs"] == 3 and row.metrics["n_questions"] == 1
    # the log can be re-scored without the judge
    assert metrics_from_arcs(arcs) == row.metrics
    assert row.meta == {"decision": "Reject", "avg_rating": 3.0}
    assert [m.key for m in dim.metrics if m.headline][0] == "mcs"


async def test_empty_review_null_metrics() -> None:
    (row,) = await get_dimension("constructiveness").evaluate(_unit([]), RunContext(OfflineJudge()))
    assert row.status == "ok" and row.metrics["mcs"] is None and row.metrics["n_arcs"] == 0


@pytest.mark.skipif(not REVUTIL.exists(), reason="RevUtil dev labels not available")
async def test_revutil_offline_keys() -> None:
    res = await get_dataset("revutil")(REVUTIL, OfflineJudge(), 80)
    for key in (
        "revutil.actionability.spearman",
        "revutil.grounding_specificity.spearman",
        "revutil.verifiability.spearman",
        "revutil.tone.accuracy",
    ):
        assert res[key] is not None
    assert res["n.points"] == 80 and res["n.unscored"] == 0
    # in-sample for the shipped model (fitted on this file): a sanity floor, not a figure
    assert res["revutil.actionability.spearman"] > 0.5


@pytest.mark.skipif(not REVUTIL.exists(), reason="RevUtil dev labels not available")
def test_agreement_cli_json() -> None:
    import json

    from typer.testing import CliRunner

    from prism_review.cli import app

    res = CliRunner().invoke(
        app,
        ["agreement", "--dataset", "revutil", "--file", str(REVUTIL), "--limit", "40", "--json"],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)  # the in-sample warning goes to stderr
    assert out["n.points"] == 40
    assert {
        "revutil.actionability.spearman",
        "revutil.grounding_specificity.spearman",
        "revutil.verifiability.spearman",
        "revutil.tone.accuracy",
    } <= set(out)

"""Zeros nobody earned (issue 11, item 5; spec §14.4 revised): in the default (clean) mode
these are null and counted, under ``--compat`` the original's numbers stay.

* a DoA segmentation with no unit for a non-empty review: re-asked once, then unscored;
* ``retrieval none``: claims cannot be checked, so NS/SR/SSR are null (not 0.5 / 0);
* a novelty final score that is 1 up to float error counts for SR;
* an unknown ``--set`` key or ``novelty_policy`` value stops the run (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.base import OfflineJudge
from prism_review.metrics.novelty import aggregate_scores, review_metrics
from prism_review.pipelines.runner import EvalOptions, run_evaluation
from prism_review.records import Paper, Review, Section

REVIEW = "The method is novel. Table 2 shows a 3.1 point gain on ImageNet. Please add ablations."


def _depth_unit(sections: list[Section]) -> Any:
    # a bring-your-own system: its text is the same in both modes (a built-in system's compat
    # text is read from its raw file, which an in-memory review does not have)
    dim = get_dimension("depth")
    review = Review(paper_id="p1", venue="ICLR2024", system="my_reviewer", reviewer_id="R1",
                    sections=sections)
    (unit,) = dim.work_units(Paper(paper_id="p1", venue="ICLR2024"), {"my_reviewer": [review]},
                             ["my_reviewer"])
    return dim, unit


async def test_llm_segmentation_without_units_is_reasked_then_unscored(llm_server: Any,
                                                                       loopback_judge: Any) -> None:
    llm_server.canned("depth.segment", {"arguments": []})
    dim, unit = _depth_unit([Section(name="Weaknesses", text=REVIEW)])
    (row,) = await dim.evaluate(unit, RunContext(loopback_judge(), settings={"protocol": "reference"}))
    segment_calls = [r for r in llm_server.requests if r.step == "depth.segment"]
    assert len(segment_calls) == 2  # the answer, and one re-ask stating the problem
    assert "no argumentative unit" in segment_calls[1].messages[-1]["content"]
    assert row.status == "unscored" and row.metrics["doa"] is None
    assert "depth.segment" in (row.error or "")
    assert not [r for r in llm_server.requests if r.step != "depth.segment"]


async def test_compat_keeps_the_original_zero_for_an_empty_segmentation(llm_server: Any,
                                                                        loopback_judge: Any) -> None:
    llm_server.canned("depth.segment", {"arguments": []})
    dim, unit = _depth_unit([Section(name="Weaknesses", text=REVIEW)])
    (row,) = await dim.evaluate(unit, RunContext(loopback_judge(), settings={"compat": True}))
    assert row.status == "ok" and row.metrics["doa"] == 0.0
    assert len([r for r in llm_server.requests if r.step == "depth.segment"]) == 1


async def test_offline_segmentation_without_units_is_unscored() -> None:
    # the offline segmenter drops score lines whatever the model says: a review whose text is
    # only score lines has text but no unit, which must not read as DoA 0 (Summary sentences
    # are units since the offline judge segments the Summary as the reference does)
    dim, unit = _depth_unit([Section(name="Weaknesses", text="Rating: 6\nConfidence: 4")])
    (row,) = await dim.evaluate(unit, RunContext(OfflineJudge()))
    assert row.status == "unscored" and row.metrics["doa"] is None
    (old,) = await dim.evaluate(unit, RunContext(OfflineJudge(), settings={"compat": True}))
    assert old.status == "ok" and old.metrics["doa"] == 0.0


def test_final_score_that_is_one_up_to_float_error_counts_as_support() -> None:
    final, _, _ = aggregate_scores([-2, 0, 2], "top3_relevance", [0.3, 0.1, 1.0])
    assert final == 1.0
    assert review_metrics([final])["sr"] == 1.0
    raw, _, _ = aggregate_scores([-2, 0, 2], "top3_relevance", [0.3, 0.1, 1.0], ndigits=None)
    assert raw < 1.0  # what the original computed, kept for compat


async def test_retrieval_none_leaves_novelty_unscored_not_half(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PRISM_CACHE_DIR", str(tmp_path / "cache"))
    rows = {}
    for compat in (False, True):
        out = tmp_path / f"run-{compat}"
        opts = EvalOptions(out=out, dimensions=["novelty"], judge="offline", limit=2, compat=compat,
                           settings={"retrieval": "none"})
        res = await run_evaluation(opts)
        assert res.units_failed == 0
        rows[compat] = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines() if x]
    clean = [r for r in rows[False] if r["metrics"]["n_claims"]]
    assert clean, "the demo has reviews with novelty claims"
    for r in clean:
        assert r["status"] == "ok" and r["metrics"]["has_claim"] == 1
        assert (r["metrics"]["ns"], r["metrics"]["sr"], r["metrics"]["ssr"]) == (None, None, None)
        assert "retrieval none" in r["extracted"]["unchecked"]
    old = [r for r in rows[True] if r["metrics"]["n_claims"]]
    assert old and all(r["metrics"]["ns"] == 0.5 and r["metrics"]["sr"] == 0.0 for r in old)
    from prism_review.report import write_run_outputs

    notes = write_run_outputs(tmp_path / "run-False", html=False).markdown
    assert "with claims not checked (retrieval none)" in notes


def test_unknown_setting_is_an_error_naming_the_closest_keys() -> None:
    from prism_review.dimensions.settings import SettingsError, by_closeness, check_settings

    specs = get_dimension("novelty").setting_specs + get_dimension("flaws").setting_specs
    try:
        check_settings({"novelty_polcy": "max"}, specs)
    except SettingsError as exc:
        msg = str(exc)
    else:
        raise AssertionError("a misspelt key must not be accepted")
    assert "novelty_polcy" in msg and msg.split("closest first): ", 1)[1].startswith("novelty_policy,")
    assert by_closeness("flaws.referense", ["verdict_batch", "flaws.reference"])[0] == "flaws.reference"


def test_cli_refuses_unknown_set_key_and_unknown_policy(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["evaluate", "--out", str(tmp_path / "a"), "-q", "--set",
                              "novelty_polcy=max"])
    assert res.exit_code == 2, res.output
    assert "unknown setting 'novelty_polcy'" in res.output and "novelty_policy" in res.output
    res = runner.invoke(app, ["evaluate", "--out", str(tmp_path / "b"), "-q", "--set",
                              "novelty_policy=maxx"])
    assert res.exit_code == 2, res.output
    assert "novelty_policy must be one of top3_relevance, max, mean, weighted" in " ".join(res.output.split())
    assert not (tmp_path / "b" / "results.jsonl").exists()

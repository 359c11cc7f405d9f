"""The runner over the bundled demo with a toy dimension: filters, resume, errors, settings guard."""

from __future__ import annotations

import json

import pytest

from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    ResultRow,
    WorkUnit,
    register_dimension,
    unregister_dimension,
)
from prism_review.judge.base import OfflineJudge
from prism_review.pipelines.results import read_results
from prism_review.pipelines.runner import EvalOptions, RunSettingsError, run_evaluation


class _Count(Dimension):
    """One unit per review; metric = review length in words; raises on a chosen paper."""

    name = "toy-count"
    label = "Toy"
    metrics = [MetricSpec(key="words", label="Words", headline=True)]
    fail_on: set[str] = set()
    calls = 0

    def work_units(self, paper, reviews, systems):
        for system in systems:
            for r in reviews.get(system, []):
                yield WorkUnit(
                    key=f"{paper.venue}/{paper.paper_id}/{system}/{r.reviewer_id}",
                    venue=paper.venue, paper_id=paper.paper_id, system=system, paper=paper, reviews=[r],
                )

    async def evaluate(self, unit, ctx):
        type(self).calls += 1
        if unit.paper_id in type(self).fail_on:
            raise RuntimeError("boom")
        r = unit.reviews[0]
        return [
            ResultRow(
                dimension=self.name, venue=unit.venue, paper_id=unit.paper_id, system=unit.system,
                reviewer_id=r.reviewer_id, metrics={"words": len(r.text.split())},
            )
        ]


@pytest.fixture(autouse=True)
def _toy():
    register_dimension(_Count)
    _Count.fail_on = set()
    _Count.calls = 0
    yield
    unregister_dimension(_Count.name)


def _opts(tmp_path, **kw):
    return EvalOptions(out=tmp_path / "run", dimensions=["toy-count"], **kw)


async def test_runs_demo_and_resumes_without_recomputing(tmp_path):
    res = await run_evaluation(_opts(tmp_path), judge=OfflineJudge())
    rows = read_results(tmp_path / "run")
    assert res.units_done == len(rows) > 20
    assert {r.system for r in rows} >= {"human", "gpt4"}
    human = [r for r in rows if r.system == "human"]
    assert {r.paper_id for r in human} == {r.paper_id for r in rows}  # every paper has humans
    # the decision comes with each row: NExT-GPT's human file says "Reject"; RevUtil papers
    # carry paper_metadata.jsonl's raw "accepted"/"rejected"
    assert {r.meta.get("decision") for r in human if r.paper_id == "0A5o6dCKeK"} == {"Reject"}
    assert {r.meta.get("decision") for r in human} == {"Reject", "accepted", "rejected"}
    assert all(r.judge == "offline" and r.mode == "clean" and r.config_hash for r in rows)
    first_calls = _Count.calls
    again = await run_evaluation(_opts(tmp_path), judge=OfflineJudge())
    assert _Count.calls == first_calls  # nothing recomputed
    assert again.units_skipped == res.units_done
    assert read_results(tmp_path / "run") == rows
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["totals"]["units_resumed"] == res.units_done


async def test_filters_limit_venue_system(tmp_path):
    await run_evaluation(_opts(tmp_path, systems=["gpt4"], limit=3, venues=["iclr_2024"]), judge=OfflineJudge())
    rows = read_results(tmp_path / "run")
    assert {r.system for r in rows} == {"gpt4"}
    assert len({r.paper_id for r in rows}) <= 3


async def test_failed_unit_is_logged_and_retried_next_run(tmp_path):
    _Count.fail_on = {"0A5o6dCKeK"}
    res = await run_evaluation(_opts(tmp_path), judge=OfflineJudge())
    assert res.units_failed == 4  # the four human reviews of that paper
    errs = (tmp_path / "run" / "errors.jsonl").read_text().splitlines()
    assert len(errs) == 4 and "boom" in errs[0]
    assert not any(r.paper_id == "0A5o6dCKeK" for r in read_results(tmp_path / "run"))
    _Count.fail_on = set()
    res2 = await run_evaluation(_opts(tmp_path), judge=OfflineJudge())
    assert res2.units_failed == 0 and res2.units_done - res2.units_skipped == 4
    assert sum(r.paper_id == "0A5o6dCKeK" for r in read_results(tmp_path / "run")) == 4


async def test_other_settings_in_same_folder_are_refused(tmp_path):
    await run_evaluation(_opts(tmp_path, limit=1), judge=OfflineJudge())
    with pytest.raises(RunSettingsError, match="other settings"):
        await run_evaluation(_opts(tmp_path, limit=1, compat=True), judge=OfflineJudge())


async def test_other_offline_model_files_are_refused(tmp_path, monkeypatch):
    """A run folder made with other bundled model files is not resumed with these ones."""
    from prism_review.judge import base as judge_base

    assert OfflineJudge().describe()["models"] == judge_base.offline_models_fingerprint()
    await run_evaluation(_opts(tmp_path, limit=1), judge=OfflineJudge())
    monkeypatch.setattr(judge_base, "offline_models_fingerprint", lambda: "0123456789abcdef")
    with pytest.raises(RunSettingsError, match="other settings"):
        await run_evaluation(_opts(tmp_path, limit=1), judge=OfflineJudge())


async def test_dimensions_can_be_added_to_a_run_folder(tmp_path):
    """A second dimension joins the same run folder; the summary then covers both."""
    from prism_review.report import write_run_outputs

    out = tmp_path / "run"
    await run_evaluation(EvalOptions(out=out, dimensions=["toy-count"], limit=2), judge=OfflineJudge())
    await run_evaluation(EvalOptions(out=out, dimensions=["depth"], limit=2), judge=OfflineJudge())
    rows = read_results(out)
    assert {r.dimension for r in rows} == {"toy-count", "depth"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["dimensions"]) == {"toy-count", "depth"}
    written = write_run_outputs(out, html=False)
    assert {d.name for d in written.dims} == {"toy-count", "depth"}


async def test_units_are_prefetched_when_queued_and_resumed_ones_are_not(tmp_path, monkeypatch):
    """The in-process engine asks the dimension to prefetch each unit it queues (the DoA
    encoder's runs), before the unit is evaluated; a resumed run prefetches nothing."""
    seen: list[str] = []
    evaluated: list[str] = []
    orig = _Count.evaluate

    async def evaluate(self, unit, ctx):
        assert unit.key in seen  # prefetched before it ran
        evaluated.append(unit.key)
        return await orig(self, unit, ctx)

    monkeypatch.setattr(_Count, "prefetch", lambda self, unit, ctx: seen.append(unit.key), raising=False)
    monkeypatch.setattr(_Count, "evaluate", evaluate)
    res = await run_evaluation(_opts(tmp_path, limit=3), judge=OfflineJudge())
    assert sorted(seen) == sorted(evaluated) and len(seen) == res.units_done > 0
    seen.clear()
    await run_evaluation(_opts(tmp_path, limit=3), judge=OfflineJudge())
    assert seen == []

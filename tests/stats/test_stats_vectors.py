"""statistics.json reference vectors against prism_review.metrics.stats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.dimensions.base import ResultRow, get_dimension
from prism_review.metrics import stats
from prism_review.pipelines import pairing
from prism_review.testing.shared import SHARED

VEC = Path(f"{SHARED}/spec/vectors/statistics.json")
CASES = json.loads(VEC.read_text())["cases"] if VEC.exists() else []
pytestmark = pytest.mark.skipif(not CASES, reason="reference vectors not available")

METRICS = [
    "MCS",
    "AR",
    "SD",
    "CD",
    "D1_actionability_mean",
    "D2_specificity_mean",
    "D3_justification_mean",
    "D4_solution_mean",
    "D5_tone_mean",
]


def _cases(fn: str) -> list[dict]:
    return [c for c in CASES if c["function"].split("::")[-1].startswith(fn)]


def _close(a: Any, b: Any, tol: float) -> None:
    if isinstance(b, dict):
        assert set(a) == set(b), (sorted(a), sorted(b))
        for k in b:
            _close(a[k], b[k], tol)
    elif isinstance(b, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _close(x, y, tol)
    elif isinstance(b, bool | str) or b is None:
        assert a == b
    else:
        assert abs(a - b) <= tol, (a, b)


def _papers(records: list[dict]) -> list[stats.PairedPaper]:
    """The reference's per-paper records as results rows (one human-average row and one LLM row
    per paper), paired by the project's one pairing, as ``prism compare`` and the report pair."""
    rows = []
    for i, r in enumerate(records):
        c, md = r["comparison"], r.get("metadata", {})
        for system, prefix in (("sea", "llm_"), ("human", "human_avg_")):
            rows.append(ResultRow(
                dimension="constructiveness", venue="V", paper_id=r.get("paper_id", f"p{i:04d}"),
                system=system, reviewer_id=system, meta=md,
                metrics={m: c.get(prefix + m) for m in METRICS}))  # fmt: skip
    papers = pairing.paired_papers(rows, get_dimension("constructiveness"), METRICS, "sea", "human")
    assert len(papers) == len(records)  # every reference record pairs
    return papers


def _ref_names(d: Any) -> Any:
    """Rename the generic a/b keys to the reference's llm/human keys."""
    ren = {"mean_a": "llm_mean", "mean_b": "human_mean"}
    if isinstance(d, dict):
        return {ren.get(k, k): _ref_names(v) for k, v in d.items()}
    return d


@pytest.mark.parametrize("case", _cases("cliffs_delta"), ids=lambda c: c["name"])
def test_cliffs(case: dict) -> None:
    got = list(stats.cliffs_delta(case["input"]["x"], case["input"]["y"]))
    assert got == case["expected"]["cliffs_delta"] == case["expected"]["cliffs_delta_fast"]


@pytest.mark.parametrize("case", _cases("bootstrap_ci"), ids=lambda c: c["name"])
def test_bootstrap(case: dict) -> None:
    i = case["input"]
    got = stats.bootstrap_ci(i["x"], i["y"], n_bootstrap=i["n_bootstrap"], seed=i["rng_seed"])
    _close(got, case["expected"], 1e-4 + 1e-9)


@pytest.mark.parametrize("case", _cases("holm_bonferroni"), ids=lambda c: c["name"])
def test_holm(case: dict) -> None:
    got = stats.holm_bonferroni([tuple(p) for p in case["input"]["p_values"]])
    _close(got, case["expected"], 1e-6)


@pytest.mark.parametrize("case", _cases("run_full_analysis (its"), ids=lambda c: c["name"])
def test_wilcoxon(case: dict) -> None:
    stat, p = stats.wilcoxon(case["input"]["diffs"])
    assert stat == case["expected"]["statistic"]
    assert abs(p - case["expected"]["pvalue"]) <= 1e-9


@pytest.mark.parametrize(
    "case",
    [c for c in _cases("run_full_analysis") if "(its" not in c["function"]],
    ids=lambda c: c["name"],
)
def test_full_analysis(case: dict) -> None:
    res = stats.full_analysis(
        _papers(case["input"]["records"]),
        METRICS,
        n_bootstrap=case["input"].get("n_bootstrap", 10_000),
    )
    summary = res["summary"]
    got = {
        "n_papers": res["n_papers"],
        "per_metric": _ref_names(res["per_metric"]),
        "holm_bonferroni_correction": res["holm"],
        "summary": {
            "llm_significantly_better": summary["a_better"],
            "human_significantly_better": summary["b_better"],
            "no_significant_difference": summary["no_difference"],
        },
    }
    _close(got, case["expected"], 1e-4 + 1e-9)


@pytest.mark.parametrize("case", _cases("run_subgroup_analysis"), ids=lambda c: c["name"])
def test_subgroups(case: dict) -> None:
    papers = _papers(case["input"]["records"])
    got = _ref_names(stats.subgroup_analysis(papers, METRICS, compat=case["compat"]))
    _close(got, case["expected"], 1e-4 + 1e-9)


def test_k3_default_leaves_null_ratings_out() -> None:
    case = next(c for c in CASES if c["name"] == "subgroup_K3_null_rating_counts_as_zero")
    papers = _papers(case["input"]["records"])
    n_null = sum(p.avg_rating is None for p in papers)
    compat = stats.subgroup_analysis(papers, METRICS, compat=True)["by_quality_tier"]
    rec = stats.subgroup_analysis(papers, METRICS)["by_quality_tier"]
    assert rec["bottom_25"]["n_papers"] == compat["bottom_25"]["n_papers"] - n_null == 3
    assert rec["top_25"] == compat["top_25"]

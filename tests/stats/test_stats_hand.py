"""Hand-computed checks of the statistics module (independent of the reference vectors)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import wilcoxon as scipy_wilcoxon

from prism_review.metrics import stats


def test_cliffs_by_hand() -> None:
    # x=[1,3], y=[2]: pairs (1<2), (3>2) -> (1-1)/2 = 0
    assert stats.cliffs_delta([1, 3], [2]) == (0.0, "negligible")
    # x=[2,3,4], y=[1,3]: greater: 2>1,3>1,4>1,4>3 = 4; less: 2<3 = 1 -> 3/6 = 0.5
    assert stats.cliffs_delta([2, 3, 4], [1, 3]) == (0.5, "large")
    # brute force agrees on random data with ties
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 37).astype(float)
    y = rng.integers(0, 5, 23).astype(float)
    brute = (np.sign(x[:, None] - y[None, :])).sum() / (37 * 23)
    assert stats.cliffs_delta_raw(x, y) == pytest.approx(brute)


@pytest.mark.parametrize(
    ("delta", "band"),
    [
        (0.1469, "negligible"),
        (0.147, "small"),
        (-0.3299, "small"),
        (0.33, "medium"),
        (0.4739, "medium"),
        (-0.474, "large"),
    ],
)
def test_magnitude_bands_strict(delta: float, band: str) -> None:
    assert stats.cliffs_magnitude(delta) == band


def test_holm_by_hand() -> None:
    # sorted: b .01*3 = .03, c .02*2 = .04, a .04*1 = .04
    out = stats.holm_bonferroni([("a", 0.04), ("b", 0.01), ("c", 0.02)])
    assert [(o["test_name"], o["adjusted_p"], o["significant"]) for o in out] == [
        ("b", 0.03, True),
        ("c", 0.04, True),
        ("a", 0.04, True),
    ]


def test_wilcoxon_matches_scipy_and_zero_case() -> None:
    d = [0.3, -0.1, 0.25, 0.4, 0.05, -0.2, 0.15, 0.35, 0.1, 0.45]
    ref = scipy_wilcoxon(d, alternative="two-sided")
    assert stats.wilcoxon(d) == (float(ref.statistic), float(ref.pvalue))
    assert stats.wilcoxon([0.0] * 12) == (0.0, 1.0)


def test_bootstrap_deterministic_and_brackets_mean() -> None:
    x = [0.5, 0.7, 0.2, 0.9, 0.4, 0.6]
    y = [0.4, 0.5, 0.3, 0.6, 0.4, 0.5]
    a = stats.bootstrap_ci(x, y)
    assert a == stats.bootstrap_ci(x, y)
    assert a["mean_diff"] == round(np.mean(np.subtract(x, y)), 4)
    assert a["ci_lower"] <= a["mean_diff"] <= a["ci_upper"]


def test_paired_analysis_skips_small_and_flags_winner() -> None:
    pairs = {"big": [(1.0 + i / 100, 0.5) for i in range(12)], "small": [(1.0, 0.0)] * 9}
    res = stats.paired_analysis(pairs, n_bootstrap=200)
    assert res["per_metric"]["small"]["skipped"] is True
    big = res["per_metric"]["big"]
    assert big["mean_diff"] == pytest.approx(0.5 + 0.055, abs=1e-4)
    assert big["significant_after_correction"] is True
    assert res["summary"]["a_better"] == ["big"]


def test_rating_tiers() -> None:
    # sorted known [1,2,3,4]: q25 = s[1] = 2, q75 = s[3] = 4
    assert stats.rating_tiers([1, 2, 3, 4, None]) == [
        "bottom_25",
        "bottom_25",
        "middle_50",
        "top_25",
        None,
    ]
    assert stats.rating_tiers([1, 2, 3, 4, None], compat=True)[-1] == "bottom_25"


def test_lower_is_better_metrics_name_the_smaller_mean_the_better_system() -> None:
    """A significantly higher hallucination rate makes a system worse, not better."""
    pairs = {"hallucination_rate": [(0.5 + i / 100, 0.1) for i in range(12)],
             "recall": [(0.9, 0.2 + i / 100) for i in range(12)]}
    res = stats.paired_analysis(pairs, n_bootstrap=200, lower_is_better={"hallucination_rate"})
    assert res["summary"]["b_better"] == ["hallucination_rate"]
    assert res["summary"]["a_better"] == ["recall"]
    plain = stats.paired_analysis(pairs, n_bootstrap=200)  # without the direction: both "a"
    assert plain["summary"]["a_better"] == ["hallucination_rate", "recall"]

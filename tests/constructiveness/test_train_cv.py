"""The constructiveness training's cross-validation measures what ships."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from prism_review.data.jsonl import read_jsonl
from prism_review.testing.shared import SHARED
from prism_review.training.constructiveness import train as T

REVUTIL = Path(f"{SHARED}/data/labels/revutil/dev.jsonl")


@pytest.mark.skipif(not REVUTIL.exists(), reason="RevUtil dev labels not available")
def test_fold_thresholds_give_held_out_points_the_labelled_level_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    # The shipped thresholds are quantiles of out-of-fold predictions, so each CV fold must make
    # its thresholds the same way; quantiles of the fit's own (in-sample) predictions, which spread
    # wider than unseen points' do, put too few held-out points at levels 0 and 2.
    monkeypatch.setattr(T, "rule_figures", lambda rows, levels: {})
    rows = read_jsonl(REVUTIL)[:200]
    setup = {d: {"gpt4o_weight": 0.0, "density": False} for d in T.ASPECTS}
    _, report = T.train_rubric(rows, [], setup=setup, alphas=(1.0,))
    for name, res in report["cv"].items():
        gap = np.abs(np.subtract(res["level_shares_predicted"], res["level_shares_human"])).sum()
        assert gap < 0.15, (name, res["level_shares_predicted"], res["level_shares_human"])

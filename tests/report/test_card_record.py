"""The class ``prism agreement --judge J`` gives a column from one measured figure."""

from prism_review.report.card_record import classify
from prism_review.report.card_rules import RULES

LEVEL = next(r for r in RULES if r.level_of is not None)  # R_premise: predicted vs labelled mean
RANK = next(r for r in RULES if r.key == "revutil.actionability.spearman")


def test_a_level_figure_off_its_label_is_not_informative_not_ranking_only() -> None:
    """A predicted mean 0.30 from the labelled one measures no ranking at all, yet was classed
    'ranking only (orders systems ...)', which compare and the report then treat as a finding."""
    near = {LEVEL.key: 0.40, LEVEL.level_of: 0.38, LEVEL.n_key: 88}
    off = {LEVEL.key: 0.70, LEVEL.level_of: 0.40, LEVEL.n_key: 88}
    assert classify(LEVEL, near)[0] == "comparable"
    cls, text = classify(LEVEL, off)
    assert cls == "not_informative", text
    assert "0.700 vs 0.400" in text


def test_rank_figures_need_their_margin_and_a_null_is_unmeasured_not_zero() -> None:
    base = RANK.baseline
    assert base is not None
    assert classify(RANK, {RANK.key: 0.40, base: 0.30})[0] == "ranking_only"
    assert classify(RANK, {RANK.key: 0.33, base: 0.30})[0] == "not_informative"
    cls, text = classify(RANK, {RANK.key: None, base: 0.30})
    assert cls == "unmeasured" and "null" in text
    assert classify(RANK, {RANK.key: 0.40})[0] == "unmeasured"  # no baseline: not a 0 baseline

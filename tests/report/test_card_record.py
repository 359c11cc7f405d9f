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


def test_an_in_sample_measurement_is_kept_but_vouches_for_no_column(tmp_path) -> None:
    """``prism agreement --judge offline --card PATH`` on a file the judge was trained on measured
    fit; it classed the columns from it (the class drives the markers and whether compare makes a
    finding), only the figure's text saying IN-SAMPLE. It is recorded, and classes nothing."""
    import json

    from prism_review.report.card_record import record

    rv = tmp_path / "rv.jsonl"
    rv.write_text("{}\n")
    res = {RANK.key: 0.60, RANK.baseline: 0.30, RANK.n_key: 50}
    card = tmp_path / "card.json"
    assert record("offline", "revutil", rv, res, card=card, in_sample="RevUtil dev: fitted on it") == card
    data = json.loads(card.read_text())
    assert data["entries"] == []
    (m,) = [m for m in data["measurements"] if m["metric"] == RANK.key]
    assert m["in_sample"] is True and m["figure"] == 0.60
    record("offline", "revutil", rv, res, card=card)  # held out: it vouches
    cols = {(e["dimension"], e["metric"]): e["class"] for e in json.loads(card.read_text())["entries"]}
    assert cols[("constructiveness", "d1")] == "ranking_only"
    record("offline", "revutil", rv, res, card=card, in_sample="fitted")  # leaves that entry alone
    cols = {(e["dimension"], e["metric"]): e["class"] for e in json.loads(card.read_text())["entries"]}
    assert cols[("constructiveness", "d1")] == "ranking_only"

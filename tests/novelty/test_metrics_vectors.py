import pytest

from prism_review.metrics.novelty import (
    aggregate_scores,
    best_evidence,
    normalized_score,
    recompute_from_pairs,
    review_metrics,
    summarize,
    support_rate,
    verdict_label,
)
from prism_review.testing.vectors import vector_cases as cases

TOL = 1e-9


def close(a, b, tol=TOL):
    return abs(a - b) <= tol


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "_aggregate_scores_with_trace"))
def test_aggregate_policies(case):
    inp, exp = case["input"], case["expected"]
    final, idx, w = aggregate_scores(inp["scores"], inp["policy"], inp["relevance_scores"])
    # The aggregation function is the same in both modes; the N3 "compat" cases are the
    # no-relevance branch, which REC (a) avoids upstream by keeping relevance in the pool.
    assert close(final, exp["final_score"])
    assert idx == exp["ranked_indices"]
    assert all(close(a, b) for a, b in zip(w, exp["ranked_weights"], strict=True))


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "_best_evidence_ids"))
def test_best_evidence(case):
    inp, exp = case["input"], case["expected"]
    ids, details = best_evidence(inp["results"], inp["ranked_indices"], inp["ranked_weights"], inp["max_ids"])
    assert ids == exp["best_evidence"]
    assert details == exp["best_evidence_details"]


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "_normalize_score"))
def test_ns(case):
    assert normalized_score(case["input"]["mean_score"], 4) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "_support_rate"))
def test_support_rate(case):
    inp = case["input"]
    assert support_rate(inp["scores"], inp["threshold"], 4) == case["expected"]


def _pairs_and_rel(task3):
    rel = {w["related_paper_id"]: w["relevance_score"] for w in task3["related_works"]}
    return task3["pair_results"], rel


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "recompute_aggregation"))
def test_ablation_recompute(case):
    inp, exp = case["input"], case["expected"]
    pairs, rel = _pairs_and_rel(inp["task3_result"])
    finals = recompute_from_pairs(pairs, rel, inp["policy"])
    assert all(close(a, b) for a, b in zip(finals, exp["final_scores"], strict=True))
    m = review_metrics(finals, compat=case["compat"])
    if finals:
        assert close(round(m["mean_score"], 4), exp["mean_score"], 1e-4 + TOL)
        assert close(round(m["ns"], 4), exp["ns"], 1e-4 + TOL)
        assert close(round(m["sr"], 4), exp["sr"])
        assert close(round(m["ssr"], 4), exp["ssr"])
    else:
        # N6: the ablation script gave NS = 0 for a claim-less review (the comparison script
        # gave 0.5).  Default: excluded (None); compat follows the comparison script (0.5).
        assert exp["ns"] == 0.0
        assert review_metrics(finals)["ns"] is None
        assert m["ns"] == 0.5 and m["sr"] == 0.0 and m["ssr"] == 0.0


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "load_task3"))
def test_backbone_metrics(case):
    exp = case["expected"]
    finals = [a["final_score"] for a in case["input"]["task3_result"]["aggregated"]]
    m = review_metrics(finals, compat=True)
    assert close(m["ns"], exp["ns"]) and close(m["sr"], exp["sr"]) and close(m["ssr"], exp["ssr"])
    assert m["n_claims"] == exp["claim_count"]
    # claim_labels use the backbone script's own plotting bins; not a metric, not ported.
    if case["compat"]:
        default = review_metrics(finals)
        assert default["ns"] is None and default["has_claim"] == 0


def test_verdict_label_truncates_toward_zero():
    # evaluate.py::compute_summary's mapping (see evaluate_summary_verdict_from_final_score)
    assert [verdict_label(x) for x in (2.0, 0.6666, -1.5, None, 1.0)] == [
        "SUPPORTED", "AMBIGUOUS", "UNDERSTATED", "unknown", "OVERSTATED"]


@pytest.mark.parametrize("case", cases("novelty_aggregation.json", "per_paper_stats"))
def test_per_paper_stats(case):
    dirs = case["input"]["dirs"]
    common = [p for p in dirs[0]["papers"] if all(d["papers"].get(p) is not None for d in dirs)]
    rows = []
    for pid in common:
        row = {"paper_id": pid}
        for d in dirs:
            agg = d["papers"][pid].get("aggregated", [])
            m = review_metrics([a["final_score"] for a in agg], compat=True)
            name = d["name"]
            row[f"n_claims_{name}"] = m["n_claims"]
            row[f"mean_score_{name}"] = round(m["mean_score"], 4)
            row[f"max_score_{name}"] = round(m["max_score"], 4)
            for k in ("ns", "sr", "ssr"):
                row[f"{k}_{name}"] = round(m[k], 4)
        rows.append(row)
    for got, want in zip(rows, case["expected"]["rows"], strict=True):
        for key, val in got.items():
            assert val == want[key] if isinstance(val, str) else close(val, want[key], 1e-4 + TOL), key


def test_hand_top3_relevance_weighting():
    # scores 2, -2, 1 with relevances 1.0, 0.5, 0.25 → (2 - 1 + 0.25) / 1.75
    final, idx, w = aggregate_scores([2, -2, 1, 2], "top3_relevance", [1.0, 0.5, 0.25, 0.1])
    assert close(final, 1.25 / 1.75)
    assert idx == [0, 1, 2]
    assert close(sum(w), 1.0)


def test_hand_review_metrics_and_claim_rate():
    m = review_metrics([2.0, 1.0, -2.0], ["novel", "not_novel", "weird"])
    assert close(m["mean_score"], 1 / 3)
    assert close(m["ns"], (1 / 3 + 2) / 4)
    assert close(m["sr"], 2 / 3) and close(m["ssr"], 1 / 3)
    assert close(m["stance_novel"], 1 / 3) and close(m["stance_unclear"], 1 / 3)
    none = review_metrics([])
    assert none["has_claim"] == 0 and none["ns"] is None and none["stance_novel"] is None
    unscored = review_metrics([None, None], ["novel", "novel"])
    assert unscored["has_claim"] == 1 and unscored["ns"] is None and unscored["n_scored_claims"] == 0
    s = summarize([m, none, unscored])
    assert close(s["claim_rate"], 2 / 3)
    assert close(s["ns"], m["ns"]) and s["ns_n"] == 1
    sc = summarize([review_metrics([2.0], compat=True), review_metrics([], compat=True)])
    assert close(sc["ns"], (1.0 + 0.5) / 2) and close(sc["claim_rate"], 0.5)

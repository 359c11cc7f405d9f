"""``prism evaluate --dimension novelty`` offline on the bundled demo (local index built on first use)."""

import json

import pytest

from prism_review.dimensions.base import get_dimension
from prism_review.pipelines.runner import EvalOptions, run_evaluation


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PRISM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


async def test_demo_offline_run(tmp_path, cache):
    opts = EvalOptions(out=tmp_path / "run", dimensions=["novelty"], judge="offline", limit=3)
    res = await run_evaluation(opts)
    assert res.units_failed == 0
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().split("\n") if line.strip()]
    assert rows and all(r["dimension"] == "novelty" for r in rows)
    idx = list((cache / "novelty-index").glob("*/prism_index.json"))
    assert len(idx) == 1 and json.loads(idx[0].read_text())["documents"] > 0
    # one pool per paper, identical for every system (N7)
    pools = {}
    for r in rows:
        pools.setdefault(r["paper_id"], set()).add(json.dumps(r["extracted"]["pool"], sort_keys=True))
    assert all(len(v) == 1 for v in pools.values())
    scored = [r for r in rows if r["metrics"].get("ns") is not None]
    assert scored, "some review should have a scored novelty claim"
    for r in scored:
        m = r["metrics"]
        assert 0.0 <= m["ns"] <= 1.0 and m["has_claim"] == 1
        finals = [f for f in r["extracted"]["final_scores"] if f is not None]
        assert abs(m["ns"] - (sum(finals) / len(finals) + 2) / 4) < 1e-9
    for r in rows:
        if r["metrics"]["n_claims"] == 0:
            assert r["metrics"]["ns"] is None  # N6: claim-less reviews are not scored 0.5
    # a resumed run recomputes nothing
    again = await run_evaluation(opts)
    assert again.units_skipped == again.units_done


def test_describe_records_human_aggregation():
    d = get_dimension("novelty").describe()
    assert d["human_aggregation"] == "per_review_mean"
    assert d["human_aggregation_modes"] == ["per_review_mean", "panel_concat"]



async def test_paper_context_built_once_per_unit_not_per_review(cache, monkeypatch):
    """The abstract/introduction given to every verdict is the paper's: one extraction per unit,
    however many of its reviews (human reviews are judged one by one) have claims."""
    import prism_review.dimensions.novelty as nov
    from prism_review.data.layout import EvalLayout, demo_root
    from prism_review.dimensions.base import RunContext, WorkUnit
    from prism_review.llm import make_judge

    calls: list[int] = []
    real = nov.extract_abstract_intro

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(nov, "extract_abstract_intro", counting)
    layout = EvalLayout(demo_root())
    venue, pid, review = next(
        (v, p, rs[0])
        for v in layout.venues()
        for p in layout.paper_ids(v)
        for s in layout.systems(v)
        if s != "human" and (rs := layout.load_reviews(v, p, s))
    )
    paper = layout.load_paper(venue, pid)
    twins = [review.model_copy(update={"reviewer_id": f"Human_{k}", "system": "human"}) for k in (1, 2, 3)]
    unit = WorkUnit(key="k", venue=venue, paper_id=pid, system="human", paper=paper, reviews=twins)
    rows = await get_dimension("novelty").evaluate(unit, RunContext(make_judge("offline")))
    assert len(rows) == 3 and all(r.metrics["n_claims"] for r in rows)
    assert all(r.extracted["verdicts"] for r in rows)  # every review's claims went to verdicts
    assert len(calls) == 1

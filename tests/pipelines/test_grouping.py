"""``pipelines/grouping.py``: consecutive papers packed for a dimension that asks, sealed in the
driver before any unit reaches an engine, papers released whole and in source order."""

from __future__ import annotations

from typing import Any, ClassVar

from prism_review.dimensions.base import Dimension, RunContext, get_dimension
from prism_review.dimensions.constructiveness import GROUP
from prism_review.dimensions.review_text import review_text
from prism_review.judge.base import OfflineJudge
from prism_review.pipelines.engines import Engine
from prism_review.pipelines.grouping import grouped
from prism_review.pipelines.runner import EvalOptions, run_evaluation


class _Packs(Dimension):
    """Packs papers while the group holds at most three units; records each seal."""

    name: ClassVar[str] = "packs"
    label: ClassVar[str] = "P"
    metrics: ClassVar[list[Any]] = []

    def packs_papers(self, ctx):
        return True

    def __init__(self) -> None:
        self.sealed: list[list[str]] = []

    def work_units(self, paper, reviews, systems):  # pragma: no cover - not used
        return []

    async def evaluate(self, unit, ctx):  # pragma: no cover - not used
        return []

    def joins_group(self, group, units):
        return sum(map(len, group)) + len(units) <= 3

    def seal_group(self, group):
        self.sealed.append([u["id"] for g in group for u in g])
        for g in group:
            for u in g:  # dicts stand in for units
                u["sealed"] = True


class _Plain(_Packs):
    name: ClassVar[str] = "plain"

    def packs_papers(self, ctx):
        return False


def test_papers_are_packed_whole_sealed_first_and_released_in_order():
    packs, plain = _Packs(), _Plain()
    sizes = [2, 1, 2, 2, 4, 1]
    papers = [[(packs, {"id": f"p{i}", "sealed": False}) for _ in range(n)] + [(plain, {"id": f"p{i}x"})]
              for i, n in enumerate(sizes)]
    released = []
    for paper in grouped(iter(papers), [packs, plain], None):
        # every packed unit of a released paper is sealed already
        assert all(u["sealed"] for d, u in paper if d is packs)
        released.append(paper)
    # whole papers, greedily: {p0,p1} {p2} {p3} {p4} {p5}
    assert packs.sealed == [["p0", "p0", "p1"], ["p2", "p2"], ["p3", "p3"], ["p4"] * 4, ["p5"]]
    assert released == papers  # each paper whole, in source order


def test_no_packing_dimension_passes_papers_through_lazily():
    plain = _Plain()
    papers = iter([[(plain, "a")], [(plain, "b")]])
    out = grouped(papers, [plain], None)
    assert next(out) == [(plain, "a")]  # not buffered
    assert list(out) == [[(plain, "b")]]


class _Recording(Engine):
    """An engine that only records what it is sent (every unit as its first evaluate sees it)."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def evaluate(self, dim, unit):
        self.seen.append(unit)
        row = dim.new_row(unit, unit.reviews[0].reviewer_id)
        row.status = "ok"
        return [row]


async def test_an_engine_receives_units_of_sealed_multi_paper_groups(tmp_path, loopback_judge):
    engine = _Recording()  # evaluates nothing: the (pooled, LLM) judge is never called
    judge = loopback_judge()
    await run_evaluation(EvalOptions(out=tmp_path / "run", dimensions=["constructiveness"], limit=4,
                                     protocol="pooled", report=False), judge=judge, engine=engine)
    assert engine.seen
    dim = get_dimension("constructiveness")
    assert dim.packs_papers(RunContext(judge, settings={"protocol": "pooled"}))
    # the default (economical) protocol never groups: each call holds one review
    assert not dim.packs_papers(RunContext(judge))
    spans = [{tuple(key.split("/")[:2]) for _, key, _ in u.extra[GROUP]} for u in engine.seen]
    assert all((u.venue, u.paper_id) in s for u, s in zip(engine.seen, spans, strict=True)
               if review_text(u.reviews[0], "constructiveness").strip())
    assert any(len(s) > 1 for s in spans)  # the engine got the group, not the paper alone
    # of the group's reviews, only what the call sends travels: ids, keys and texts
    assert all(isinstance(x, str) for u in engine.seen for b in u.extra[GROUP] for x in b)
    assert all(set(u.extra) == {"meta", GROUP} for u in engine.seen)


async def test_an_offline_run_streams_papers_without_grouping(tmp_path):
    """The offline judge makes no shared call: papers are not buffered into groups, and each
    unit knows only its own paper's reviews (nothing extra is shipped to workers)."""
    engine = _Recording()
    await run_evaluation(EvalOptions(out=tmp_path / "run", dimensions=["constructiveness"], limit=4,
                                     report=False), engine=engine)
    assert engine.seen
    assert not get_dimension("constructiveness").packs_papers(RunContext(OfflineJudge()))
    assert all(set(u.extra) == {"meta"} for u in engine.seen)


def test_an_open_group_computes_each_review_text_once(monkeypatch):
    """Asking the open group to take one more paper does not recompute the texts of the papers
    it holds (12 papers of a group: 12 times each)."""
    from prism_review.data.layout import demo_root
    from prism_review.data.source_kinds import LayoutSource
    from prism_review.dimensions import constructiveness as mod

    calls = []

    def counting(review, *args, **kwargs):
        calls.append(review)
        return review_text(review, *args, **kwargs)

    monkeypatch.setattr(mod, "review_text", counting)
    dim = get_dimension("constructiveness")
    papers = [[(dim, u) for u in dim.work_units(i.paper, i.reviews, list(i.reviews))]
              for i in LayoutSource(demo_root()).items(limit=8) if i.paper is not None]

    class _Pooled:  # packs_papers' view of a pooled LLM run
        compat = False
        judge = type("J", (), {"mode": "llm"})()

        def setting(self, key, default=None):
            return "pooled" if key == "protocol" else default

    released = [u for p in grouped(iter(papers), [dim], _Pooled()) for _, u in p]
    assert len(released) == sum(map(len, papers)) > 8
    assert len(calls) == len(released)
    assert all(mod._TEXT not in u.extra for u in released)  # the stash never travels

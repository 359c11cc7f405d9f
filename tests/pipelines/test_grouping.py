"""``pipelines/grouping.py``: consecutive papers packed for a dimension that asks, sealed in the
driver before any unit reaches an engine, papers released whole and in source order."""

from __future__ import annotations

from typing import Any, ClassVar

from prism_review.dimensions.base import Dimension, RunContext, get_dimension
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
    engine = _Recording()  # evaluates nothing: the (economical, LLM) judge is never called
    judge = loopback_judge()
    await run_evaluation(EvalOptions(out=tmp_path / "run", dimensions=["constructiveness"], limit=4,
                                     report=False), judge=judge, engine=engine)
    assert engine.seen
    dim = get_dimension("constructiveness")
    assert dim.packs_papers(RunContext(judge))
    spans = [{(m[0], m[1]) for m in u.extra["group_reviews"]} for u in engine.seen]
    assert all((u.venue, u.paper_id) in s for u, s in zip(engine.seen, spans, strict=True))
    assert any(len(s) > 1 for s in spans)  # the engine got the group, not the paper alone


async def test_an_offline_run_streams_papers_without_grouping(tmp_path):
    """The offline judge makes no shared call: papers are not buffered into groups, and each
    unit knows only its own paper's reviews (nothing extra is shipped to workers)."""
    engine = _Recording()
    await run_evaluation(EvalOptions(out=tmp_path / "run", dimensions=["constructiveness"], limit=4,
                                     report=False), engine=engine)
    assert engine.seen
    assert not get_dimension("constructiveness").packs_papers(RunContext(OfflineJudge()))
    spans = [{(m[0], m[1]) for m in u.extra["group_reviews"]} for u in engine.seen]
    assert all(s == {(u.venue, u.paper_id)} for u, s in zip(engine.seen, spans, strict=True))

"""Groups of consecutive papers, for dimensions whose calls span several papers.

The runner streams papers; each paper's work units go through :func:`grouped` before any is
evaluated. A dimension that packs papers together in this run (``Dimension.packs_papers(ctx)``) is asked, paper
after paper in the run's order, whether the next paper's units join its open group
(``Dimension.joins_group``); a group that takes no more papers is sealed
(``Dimension.seal_group``: the dimension writes what the group's units must know into their
``extra``) and only then are its papers' units released, in source order.

The groups are made in the driver from every unit of the source (finished ones included), before
resume skips any: they are the same on every engine (local, ``--workers``, ``--engine ray``, which
only receive sealed units), on every pass of a batch run and on a resumed run. A dimension that
does not pack papers sees no change: its units pass through, and so does every paper when no
dimension packs (an offline run, for instance: nothing is buffered or asked).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prism_review.dimensions.base import Dimension, RunContext, WorkUnit

PaperUnits = list[tuple["Dimension", "WorkUnit"]]


def grouped(papers: Iterator[PaperUnits], dims: list[Dimension], ctx: RunContext) -> Iterator[PaperUnits]:
    """``papers`` (each paper's units), each yielded once every group holding it is sealed."""
    packing = [d for d in dims if d.packs_papers(ctx)]
    if not packing:
        yield from papers
        return
    held: list[tuple[int, PaperUnits]] = []  # papers read, not yet released, in order
    open_groups: dict[str, list[tuple[int, list[WorkUnit]]]] = {d.name: [] for d in packing}

    def seal(dim: Dimension) -> None:
        group = open_groups[dim.name]
        if group:
            dim.seal_group([units for _, units in group])
        open_groups[dim.name] = []

    def releasable() -> Iterator[PaperUnits]:
        firsts = [g[0][0] for g in open_groups.values() if g]
        bound = min(firsts) if firsts else None
        while held and (bound is None or held[0][0] < bound):
            yield held.pop(0)[1]

    for index, units in enumerate(papers):
        for dim in packing:
            mine = [u for d, u in units if d is dim]
            group = open_groups[dim.name]
            if group and not dim.joins_group([g for _, g in group], mine):
                seal(dim)
            open_groups[dim.name].append((index, mine))
        held.append((index, units))
        yield from releasable()
    for dim in packing:
        seal(dim)
    yield from releasable()

"""A dimension a test registers at run time (not decorated: importing it registers nothing, as
a worker process does when it unpickles the class)."""

from __future__ import annotations

from typing import ClassVar

from prism_review.dimensions.base import Dimension, MetricSpec, ResultRow, RunContext, WorkUnit


class CritiqueWords(Dimension):
    """Words of a review's text."""

    name: ClassVar[str] = "toy-critique-words"
    label: ClassVar[str] = "Toy words"
    metrics: ClassVar[list[MetricSpec]] = [MetricSpec(key="words", label="Words", headline=True)]

    def work_units(self, paper, reviews, systems):
        return self.per_review_units(paper, reviews, systems)

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        row = self.new_row(unit, unit.reviews[0].reviewer_id)
        row.metrics = {"words": len(unit.reviews[0].text.split())}
        return [row]


def probe(plugins, system_id):
    """In a fresh worker process: what it knows after installing the driver's plug-ins."""
    from prism_review.dimensions.base import dimension_names
    from prism_review.pipelines.plugins import install_plugins
    from prism_review.systems.registry import find_system

    before = (CritiqueWords.name in dimension_names(), find_system(system_id) is not None)
    install_plugins(plugins)
    return before, (CritiqueWords.name in dimension_names(), find_system(system_id) is not None)

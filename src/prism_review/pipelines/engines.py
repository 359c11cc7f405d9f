"""Where work units run: in this process (``local``, the default) or on a Ray cluster (``ray``).

The runner owns everything else (reading the source, resume, the results log, progress), so the
results of an evaluation do not depend on the engine: an engine only turns a work unit into its
result rows. ``--engine ray`` is :class:`prism_review.pipelines.ray_engine.RayEngine`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prism_review.dimensions.base import Dimension, ResultRow, RunContext, WorkUnit

ENGINES = ("local", "ray")


def add_numbers(total: dict[str, Any], part: dict[str, Any]) -> None:
    """Add ``part``'s numeric values into ``total`` (usage and call totals from workers)."""
    for k, v in part.items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            total[k] = total.get(k, 0) + v


class Engine:
    """Evaluates work units. ``slots`` is how many units it can usefully hold at once."""

    name = "engine"
    slots = 1

    async def start(self) -> None:
        """Acquire resources (workers); called once before the first unit."""

    async def evaluate(self, dim: Dimension, unit: WorkUnit) -> list[ResultRow]:
        raise NotImplementedError

    def prefetch(self, dim: Dimension, unit: WorkUnit) -> None:
        """``unit`` will be evaluated soon: let it start background work where it will run
        (the in-process engine asks the dimension; engines with workers elsewhere do not)."""

    async def close(self) -> None:
        """Release resources; called once after the last unit, even on failure."""

    def usage(self) -> dict[str, Any] | None:
        """Token usage of the units evaluated elsewhere (None: it is in the run's context)."""
        return None

    def judge_stats(self) -> dict[str, Any] | None:
        """LLM call totals of the workers (None: the driver's judge kept them)."""
        return None


class LocalEngine(Engine):
    """Units run as coroutines of this process, sharing the run's judge and context."""

    name = "local"
    slots = 1

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    async def evaluate(self, dim: Dimension, unit: WorkUnit) -> list[ResultRow]:
        return await dim.evaluate(unit, self.ctx)

    def prefetch(self, dim: Dimension, unit: WorkUnit) -> None:
        dim.prefetch(unit, self.ctx)

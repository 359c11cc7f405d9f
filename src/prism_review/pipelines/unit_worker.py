"""What a worker elsewhere holds, for the engines that run units outside the driver (a Ray
actor, a ``prism evaluate --workers`` process).

Its own module because it builds the judge with the runner's functions, and the runner imports
:mod:`~prism_review.pipelines.engines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prism_review.dimensions.base import ResultRow, WorkUnit


class UnitWorker:
    """What a worker elsewhere holds (a Ray actor, a ``--workers`` process): the run's judge,
    settings and memo store, built once from the run's options, and whole units evaluated with
    them. ``limiter_factory``, when given, replaces the LLM judge's rate limiters (Ray shares
    one across workers); ``plugins`` are the driver's run-time plug-ins
    (:mod:`~prism_review.pipelines.plugins`), registered first."""

    def __init__(self, opts_json: str, limiter_factory: Any = None,
                 plugins: list[tuple[str, str, bytes]] | None = None) -> None:
        from prism_review.dimensions.memo import MemoStore
        from prism_review.pipelines.plugins import install_plugins
        from prism_review.pipelines.run_config import EvalOptions, run_settings
        from prism_review.pipelines.runner import build_judge

        install_plugins(plugins or [])
        opts = EvalOptions.model_validate_json(opts_json)
        self.judge = build_judge(opts)
        calls = getattr(self.judge, "calls", None)
        if limiter_factory is not None and calls is not None:
            calls.limiter_factory = limiter_factory
        self.settings = run_settings(opts)
        self.memo = MemoStore(opts.out / "memo")
        self._reported: dict[str, Any] = {}

    async def evaluate(
        self, dimension: str, unit: WorkUnit
    ) -> tuple[list[ResultRow], dict[str, Any], dict[str, Any]]:
        """The unit's rows, the token usage they cost and :meth:`stats_since` (the driver sums
        both, so its live display counts the calls as the units come back)."""
        from prism_review.dimensions.base import RunContext, get_dimension

        ctx = RunContext(self.judge, settings=self.settings, memo_store=self.memo)
        rows = await get_dimension(dimension).evaluate(unit, ctx)
        return rows, ctx.usage.model_dump(), self.stats_since()

    def stats_since(self) -> dict[str, Any]:
        """The judge's call totals (``JudgeStats.as_dict``) added since the last report: summed
        over every report, the worker's totals, whichever of its concurrent units made a call."""
        stats = getattr(self.judge, "stats", None)
        now = dict(stats.as_dict()) if stats is not None else {}
        delta = {k: v - self._reported.get(k, 0) for k, v in now.items()
                 if isinstance(v, int | float) and not isinstance(v, bool)}
        self._reported = now
        return delta

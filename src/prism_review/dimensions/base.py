"""The dimension contract: how a PRISM dimension plugs into ``prism evaluate``.

A dimension is a set of judge steps, a metrics module and this plug-in, declared in its own
module and registered by name (:func:`register` / :func:`register_dimension`); every module of
this package is imported on first use of the registry, so a new module registers itself
(docs/extending.md, "Adding a dimension"). The runner
(:mod:`prism_review.pipelines.runner`) walks every (venue, paper) of the data, asks the
dimension for its *work units*, runs each unit once (resuming: a unit whose rows are all in the
results log is never recomputed), and appends the unit's rows to the results log in one write.

* ``work_units(paper, reviews, systems)`` → the units for one paper. ``reviews`` maps system id →
  that system's reviews of the paper (humans: one Review per reviewer). A per-review dimension
  yields one unit per review; the flaw dimension yields one unit per (paper, LLM system) pairing
  (plus a human-only unit); novelty yields one unit per (paper, system).
* ``evaluate(unit, ctx)`` → the unit's result rows (one per review judged).
* ``metrics`` → the metric columns of the summary, in order; ``MetricSpec.headline`` marks the
  ones shown in Table 1. ``row_metrics`` → the other keys a row may carry (counts,
  diagnostics). The runner checks every unit's rows against both (:meth:`Dimension.check_rows`):
  a key declared in neither, or an ``ok`` row without a declared metric, fails the unit.
* ``text_policy`` → which sections of a review the dimension reads
  (:class:`~prism_review.systems.text_policy.TextPolicy`, applied by
  :func:`prism_review.dimensions.review_text.review_text`).
* ``order`` → the dimension's place among the others (Table-1 columns, default run order).

Per-paper work shared by several units (novelty's paper side and candidate pool) goes through
``ctx.memo(key, fn)``, which persists it in the run folder so a resumed run does not redo it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from fnmatch import fnmatchcase
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from prism_review.dimensions.settings import SettingSpec
from prism_review.judge.base import Judge, StepResult, Usage
from prism_review.records import Paper, Review
from prism_review.systems.text_policy import TextPolicy

RESULTS_SCHEMA_VERSION = 1

Status = Literal["ok", "unscored", "skipped", "error"]


class MetricSpec(BaseModel):
    """One column of the summary table."""

    key: str  # key in ResultRow.metrics
    label: str  # column header, e.g. "DoA"
    higher_is_better: bool = True
    headline: bool = False  # shown in the compact Table 1 (the only place that decides it)
    fmt: str = "{:.3f}"


class WorkUnit(BaseModel):
    """One independently computable (and resumable) piece of a dimension's work."""

    key: str  # unique within a dimension and run, e.g. "ICLR2024/abc123/sea/LLM_Reviewer"
    venue: str
    paper_id: str
    system: str  # the system this unit evaluates ("human" for human-only units)
    paper: Paper
    reviews: list[Review]  # what the unit judges (one review, or a pooled panel)
    extra: dict[str, Any] = Field(default_factory=dict)


class ResultRow(BaseModel):
    """One row of the results log: one review judged on one dimension."""

    schema_version: int = RESULTS_SCHEMA_VERSION
    dimension: str
    venue: str
    paper_id: str
    system: str
    reviewer_id: str
    #: for pooled dimensions (flaws), the LLM system the human review was pooled with
    pairing: str | None = None
    unit_key: str = ""
    #: number of rows the unit wrote (set by the runner; used to detect partial writes)
    unit_size: int = 1
    status: Status = "ok"
    metrics: dict[str, float | int | None] = Field(default_factory=dict)
    extracted: dict[str, Any] = Field(default_factory=dict)
    #: paper metadata used by subgroup views: decision, accepted, avg_rating
    meta: dict[str, Any] = Field(default_factory=dict)
    judge: str = ""
    mode: str = ""
    config_hash: str = ""
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class RunContext:
    """What a dimension may use while evaluating: the judge, settings and a per-run memo."""

    def __init__(
        self,
        judge: Judge,
        *,
        settings: dict[str, Any] | None = None,
        memo_store: Any = None,
        services: dict[str, Any] | None = None,
    ) -> None:
        self.judge = judge
        self.settings: dict[str, Any] = settings or {}
        self._memo_store = memo_store
        #: optional services, e.g. ``retriever`` for novelty
        self.services: dict[str, Any] = services or {}
        self.usage = Usage()

    def setting(self, key: str, default: Any = None) -> Any:
        return self.settings.get(key, default)

    @property
    def compat(self) -> bool:
        """True when the run reproduces the original PRISM code's behaviour (``--compat``)."""
        return bool(self.settings.get("compat", False))

    async def run(self, step: Any, inp: BaseModel) -> StepResult[Any]:
        """Run a judge step and account for its usage."""
        res = await self.judge.run(step, inp)
        self.usage.add(res.usage)
        return res

    async def memo(self, key: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Compute ``fn()`` once per run for ``key`` (JSON-serialisable result), persisted."""
        if self._memo_store is None:
            return await fn()
        return await self._memo_store.get_or_compute(key, fn)


class Dimension(ABC):
    """A PRISM dimension plug-in. Subclasses are registered with :func:`register`."""

    name: ClassVar[str]
    label: ClassVar[str]
    metrics: ClassVar[list[MetricSpec]]
    #: what the dimension reads of each review (None: it reads no review text)
    text_policy: ClassVar[TextPolicy | None] = None
    #: place among the dimensions (Table-1 columns, default run order); ties by name
    order: ClassVar[int] = 100
    #: what its Table-1 columns measure, printed under Table 1 (default: the column labels)
    table1_note: ClassVar[str] = ""
    #: how the human rows of one paper become the paper's human value
    human_aggregation: ClassVar[str] = "per_review_mean"
    #: the ``--set`` settings this dimension reads (anything else is refused)
    setting_specs: ClassVar[tuple[SettingSpec, ...]] = ()
    #: metric keys its rows may carry besides the ``metrics`` columns (counts, diagnostics),
    #: each optional; a trailing ``*`` matches any ending (``Ratio_All_*``)
    row_metrics: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def work_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        """The units of work for one paper."""

    @abstractmethod
    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        """Judge one unit and return its rows (never raise for bad model output: mark unscored)."""

    def prefetch(self, unit: WorkUnit, ctx: RunContext) -> None:
        """Start, in the background, work that :meth:`evaluate` of ``unit`` will need soon
        (the offline judge's encoder runs), so it overlaps this process's other work. Must
        not change any result; the runner calls it for units queued in this process."""
        return None

    # -- calls spanning consecutive papers (pipelines/grouping.py) ------------------------------
    def packs_papers(self, ctx: RunContext) -> bool:
        """Whether the runner packs consecutive papers into groups for this dimension in the
        run of ``ctx`` (a run that makes no shared call, e.g. offline, streams papers as they
        come)."""
        return False

    def joins_group(self, group: list[list[WorkUnit]], units: list[WorkUnit]) -> bool:
        """Whether the next paper's ``units`` join the open ``group`` (each earlier paper's
        units, in run order). Only asked when :meth:`packs_papers`; a paper is never split."""
        return False

    def seal_group(self, group: list[list[WorkUnit]]) -> None:
        """A closed group's papers' units (in run order), before any is evaluated: record in
        their ``extra`` what they share. Deterministic in the units alone."""
        return None

    def per_review_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        """One unit per review of each selected system (the usual ``work_units``)."""
        for system in systems:
            for review in reviews.get(system, []):
                yield WorkUnit(
                    key=f"{paper.venue}/{paper.paper_id}/{self.name}/{system}/{review.reviewer_id}",
                    venue=paper.venue,
                    paper_id=paper.paper_id,
                    system=system,
                    paper=paper,
                    reviews=[review],
                )

    def new_row(self, unit: WorkUnit, reviewer_id: str, **fields: Any) -> ResultRow:
        """A result row of ``unit`` for one reviewer: dimension, venue, paper, system (the unit's
        unless ``fields`` names one), unit key and paper metadata filled in; ``fields`` add the rest.
        The runner stamps judge, mode and config hash, and :class:`ResultsLog` the unit size."""
        base: dict[str, Any] = {
            "dimension": self.name,
            "venue": unit.venue,
            "paper_id": unit.paper_id,
            "system": unit.system,
            "reviewer_id": reviewer_id,
            "unit_key": unit.key,
            "meta": dict(unit.extra.get("meta", {})),
        }
        return ResultRow(**(base | fields))

    def check_rows(self, rows: list[ResultRow]) -> None:
        """Raise ``ValueError`` when a row's metric keys are not the declared ones: a key that
        is neither a ``metrics`` column nor in ``row_metrics``, or an ``ok`` row missing a
        column (null is a value: ``None`` is written for a metric that has none). A misspelt
        key would otherwise give ok rows and an empty Table-1 column."""
        columns = [m.key for m in self.metrics]
        for row in rows:
            stray = sorted(k for k in row.metrics if k not in columns
                           and not any(fnmatchcase(k, pat) for pat in self.row_metrics))
            missing = [k for k in columns if k not in row.metrics] if row.status == "ok" else []
            if stray or missing:
                what = "; ".join(
                    ([f"undeclared metric(s) {', '.join(map(repr, stray))}"] if stray else [])
                    + ([f"missing metric(s) {', '.join(map(repr, missing))}"] if missing else []))
                raise ValueError(
                    f"dimension {self.name!r} wrote a {row.status} row for {row.reviewer_id!r} "
                    f"of unit {row.unit_key!r} with {what}; declared: {', '.join(columns)}"
                    + (f" (and {', '.join(self.row_metrics)})" if self.row_metrics else ""))

    def summary_system(self, row: ResultRow) -> str | None:
        """The summary group of a row (default: its system); None leaves the row out."""
        return row.system

    def describe(self) -> dict[str, Any]:
        """Dimension settings to record in the run manifest."""
        return {"human_aggregation": self.human_aggregation}

    def summary_notes(self, rows: list[ResultRow]) -> list[str]:
        """Lines for the summary's "Not in the tables" part (e.g. rows whose metric is null
        by definition, counted); ``rows`` are this dimension's rows."""
        return []


_REGISTRY: dict[str, type[Dimension]] = {}
_LOADED = False


def register(cls: type[Dimension]) -> type[Dimension]:
    """Class decorator registering a dimension by its ``name``; duplicates raise."""
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"dimension {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


#: the same as the :func:`register` decorator, for explicit calls
register_dimension = register


def unregister_dimension(name: str) -> None:
    """Remove a registered dimension (e.g. a test's toy dimension); unknown names are ignored."""
    _REGISTRY.pop(name, None)


def registered_here() -> list[type[Dimension]]:
    """The dimensions registered at run time from outside this package (``register_dimension``
    by a script or a test), which another process does not find by itself (an entry-point
    plug-in it does find)."""
    return [c for c in _REGISTRY.values()
            if not c.__module__.startswith(f"{__package__}.") and c.name not in _FOUND]


def dimension_class(name: str) -> type[Dimension]:
    """The registered class of ``name`` (KeyError naming the known ones)."""
    load_builtin_dimensions()
    if name not in _REGISTRY:
        from prism_review.names import closest_first

        raise KeyError(f"unknown dimension {name!r}; known (closest first): "
                       f"{', '.join(closest_first(name, dimension_names()))}")
    return _REGISTRY[name]


def get_dimension(name: str) -> Dimension:
    return dimension_class(name)()


def all_setting_specs() -> list[SettingSpec]:
    """Every ``--set`` setting of every registered dimension."""
    load_builtin_dimensions()
    return [spec for cls in _REGISTRY.values() for spec in cls.setting_specs]


def dimension_names() -> list[str]:
    """The registered dimensions, by ``order`` then name."""
    load_builtin_dimensions()
    return sorted(_REGISTRY, key=lambda n: (_REGISTRY[n].order, n))


#: the entry-point group an installed package declares its dimension modules in
ENTRY_POINT_GROUP = "prism_review.dimensions"
#: the names a fresh process registers by itself from entry points
_FOUND: set[str] = set()


def load_builtin_dimensions() -> None:
    """Import every module of this package once, so the dimensions in it register themselves,
    then every module an installed package declares in the ``prism_review.dimensions``
    entry-point group (a module registering with ``@register``, or a ``Dimension`` class)."""
    global _LOADED
    if _LOADED:
        return
    import importlib
    import pkgutil
    from importlib import metadata

    import prism_review.dimensions as package

    _LOADED = True  # set first: a module that uses the registry while importing does not recurse
    try:
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{info.name}")
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            obj = ep.load()
            if isinstance(obj, type) and issubclass(obj, Dimension):
                register(obj)
            members = [obj] if isinstance(obj, type) else list(vars(obj).values())
            names = {c.name for c in members if isinstance(c, type) and issubclass(c, Dimension)
                     and _REGISTRY.get(getattr(c, "name", "")) is c}
            if not names:
                raise TypeError(f"entry point {ep.name!r} ({ep.value}) of group "
                                f"{ENTRY_POINT_GROUP!r} registered no dimension")
            _FOUND.update(names)
    except BaseException:
        _LOADED = False
        raise

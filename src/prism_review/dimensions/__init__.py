"""PRISM dimensions as plug-ins of ``prism evaluate``; see :mod:`prism_review.dimensions.base`."""

from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    ResultRow,
    RunContext,
    WorkUnit,
    dimension_names,
    get_dimension,
    register,
)

__all__ = [
    "Dimension",
    "MetricSpec",
    "ResultRow",
    "RunContext",
    "WorkUnit",
    "dimension_names",
    "get_dimension",
    "register",
]

"""Which dimensions, venues and systems a run selects: names in any spelling or alias
resolved to registered ids, and a name the data (or the registry) does not hold refused with
:class:`~prism_review.names.UnknownNameError`, listing the valid names closest first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prism_review.dimensions.base import dimension_names
from prism_review.names import UnknownNameError
from prism_review.pipelines.run_config import EvalOptions
from prism_review.systems.registry import get_system
from prism_review.venues import get_venue


def all_dimensions() -> list[str]:
    return dimension_names()


def norm_venues(names: list[str]) -> set[str]:
    return canonical_ids(names, lambda n: get_venue(n).id)


def select_systems(opts: EvalOptions, source: Any) -> set[str]:
    """The selected system ids. A ``--venue``, ``--system`` or ``--dimension`` name that the
    data (or the registry) does not hold raises :class:`~prism_review.names.UnknownNameError`,
    listing the valid names closest first."""
    known_dims = all_dimensions()
    for name in opts.dimensions:
        if name not in known_dims:
            raise UnknownNameError("dimension", name, known_dims)
    present = source.venues()
    venues = present
    if opts.venues:
        wanted: set[str] = set()
        for name in opts.venues:
            try:
                vid = get_venue(name).id
            except KeyError:
                vid = None
            if vid not in present:
                raise UnknownNameError("venue", name, present, where=str(source.path))
            wanted.add(str(vid))
        venues = [v for v in present if v in wanted]
    systems = sorted({s for v in venues for s in source.systems(v)})  # registers BYO systems
    for name in opts.systems:
        if next(iter(norm_systems([name]))) not in systems:
            raise UnknownNameError("system", name, systems, where=f"{', '.join(venues)} of {source.path}")
    return norm_systems(opts.systems)


def norm_systems(names: list[str]) -> set[str]:
    return canonical_ids(names, lambda n: get_system(n).id)


def canonical_ids(names: list[str], lookup: Callable[[str], str]) -> set[str]:
    """The registered id of each name (aliases resolved); unknown names are kept as given."""
    out = set()
    for n in names:
        try:
            out.add(lookup(n))
        except KeyError:
            out.add(n)
    return out

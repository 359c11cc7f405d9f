"""Plug-ins registered in the driver only, sent to the workers of ``--workers N`` and ``--engine ray``.

A worker process finds the built-in dimensions, reviewer systems and providers and the
installed entry-point plug-ins by itself. What the driver registered at run time
(``register_dimension``, ``register_system``, a ``@modelapi`` module a script imported, a
bring-your-own folder the layout found) it would not know: a unit of such a dimension failed
with "unknown dimension", and a review of such a system was read without its spec (a human
system's per-venue formatter, a ``compat`` hook). :func:`driver_plugins` pickles those entries
once for the engine, and :func:`install_plugins` registers them in the worker before its first
unit. Pickling is by reference, as for any function sent to a worker: a plug-in must live at
module level of a module the worker can import. One that cannot be sent (defined inside a
function, say) is a :class:`~prism_review.llm.errors.ConfigError` naming it before any unit
runs, not a run whose units fail one by one.
"""

from __future__ import annotations

import pickle
from typing import Any

from prism_review.llm.errors import ConfigError


def _entries() -> list[tuple[str, str, Any]]:
    """``(kind, name, entry)`` of everything registered in this process only."""
    from prism_review.dimensions.base import load_builtin_dimensions, registered_here
    from prism_review.llm import provider
    from prism_review.systems import registry

    load_builtin_dimensions()
    return ([("dimension", c.name, c) for c in registered_here()]
            + [("reviewer system", s.id, s) for s in registry.registered_here()]
            + [("provider", u.name, u) for u in provider.registered_here()])


def driver_plugins(engine: str) -> list[tuple[str, str, bytes]]:
    """The driver's run-time plug-ins, each pickled (a ConfigError names one that cannot be)."""
    out = []
    for kind, name, entry in _entries():
        try:
            blob = pickle.dumps(entry)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise ConfigError(
                f"{engine}: the {kind} {name!r} was registered in this process and cannot be sent "
                f"to its workers ({exc}); define it at module level of an importable module or "
                "declare it as an entry point (docs/extending.md), or run in one process"
            ) from exc
        out.append((kind, name, blob))
    return out


def install_plugins(plugins: list[tuple[str, str, bytes]]) -> None:
    """Register the driver's plug-ins in this worker (those it does not know already)."""
    from prism_review.dimensions.base import dimension_names, register_dimension
    from prism_review.llm import provider
    from prism_review.systems import registry

    for kind, name, blob in plugins:
        try:
            entry = pickle.loads(blob)  # imports the plug-in's module, which may register it
        except Exception as exc:
            raise ConfigError(f"a worker cannot load the {kind} {name!r} registered in the "
                              f"driver: {type(exc).__name__}: {exc}") from exc
        if kind == "dimension" and name not in dimension_names():
            register_dimension(entry)
        elif kind == "reviewer system" and registry.find_system(name) is None:
            registry.register_system(entry)
        elif kind == "provider" and not provider.is_provider(name, aliases=False):
            provider.register(entry)

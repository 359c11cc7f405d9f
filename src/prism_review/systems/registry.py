"""The reviewer-system registry: every :class:`~prism_review.systems.spec.SystemSpec` by id.

Built-in systems are found, on first use, as the ``SPEC`` of the modules of this package
(:mod:`.human`, :mod:`.sea`, …); installed plug-ins as ``prism_review.systems`` entry points
(each naming a ``SystemSpec``); anything else registers itself with :func:`register_system`
(bring-your-own JSONL folders do so when the layout discovers them). Look systems up by id,
folder or label (``treereview``, ``tree``, ``TreeReview``: TreeReview's folder is ``tree``, the
original code mixed the two, risk O2); unknown names raise ``KeyError``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from importlib.metadata import entry_points

from prism_review.names import reserved_name_problem
from prism_review.systems.spec import SystemSpec

#: entry-point group of installed reviewer-system plug-ins
ENTRY_POINT_GROUP = "prism_review.systems"
#: the human reviewers' system id (pooled flaw banks, human-vs-system comparisons)
HUMAN = "human"
#: folder names no system may use (besides the registered systems' folders)
RESERVED_FOLDERS = frozenset({"papers"})

_SYSTEMS: dict[str, SystemSpec] = {}
_discovered = False
#: the ids a fresh process registers by itself (built-ins and entry points)
_FOUND: set[str] = set()
#: the ids of the systems this package ships (PRISM's evaluation layout has a folder for each)
_BUILTIN: set[str] = set()


def _discover() -> None:
    """Register the package's built-in specs and the installed plug-ins (once)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    import prism_review.systems as package

    found: list[SystemSpec] = []
    for mod in pkgutil.iter_modules(package.__path__):
        spec = getattr(importlib.import_module(f"{package.__name__}.{mod.name}"), "SPEC", None)
        if isinstance(spec, SystemSpec):
            found.append(spec)
            _BUILTIN.add(spec.id)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        spec = ep.load()
        if not isinstance(spec, SystemSpec):
            raise TypeError(f"entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r} "
                            f"is a {type(spec).__name__}, expected a SystemSpec")
        found.append(spec)
    for spec in sorted(found, key=lambda s: s.order):
        if spec.id not in _SYSTEMS:
            _add(spec)
            _FOUND.add(spec.id)


def _add(spec: SystemSpec) -> None:
    taken = {n for s in _SYSTEMS.values() for n in _names(s)}
    clash = sorted(set(_names(spec)) & taken)
    if clash:
        raise ValueError(f"reviewer system {spec.id!r}: the name(s) {', '.join(clash)} are "
                         "already registered")
    if spec.folder.lower() in RESERVED_FOLDERS:
        raise ValueError(f"reviewer system {spec.id!r}: folder {spec.folder!r} is reserved")
    for kind, name in (("id", spec.id), ("folder", spec.folder), ("label", spec.label)):
        problem = reserved_name_problem(name)
        if problem is not None:
            raise ValueError(f"reviewer system {spec.id!r}: {kind} {name!r} is refused: {problem}")
    _SYSTEMS[spec.id] = spec


def _names(spec: SystemSpec) -> set[str]:
    return {spec.id.lower(), spec.folder.lower(), spec.label.lower()}


def register_system(spec: SystemSpec) -> SystemSpec:
    """Add a system (a plug-in, or a bring-your-own folder found at run time). An id, folder or
    label already taken by another system raises ``ValueError``."""
    _discover()
    _add(spec)
    return spec


def unregister_system(system_id: str) -> None:
    """Remove a system registered with :func:`register_system` (``KeyError`` when unknown)."""
    _discover()
    del _SYSTEMS[system_id]


def is_builtin(system_id: str) -> bool:
    """Whether ``system_id`` is one of the systems this package ships (not a plug-in, not a
    bring-your-own folder)."""
    _discover()
    return system_id in _BUILTIN


def registered_here() -> list[SystemSpec]:
    """The systems registered in this process only (``register_system``, bring-your-own
    folders), which another process does not find by itself."""
    _discover()
    return [s for s in _SYSTEMS.values() if s.id not in _FOUND]


def systems() -> list[SystemSpec]:
    """Every registered system, in table order (``order``, then registration)."""
    _discover()
    return sorted(_SYSTEMS.values(), key=lambda s: s.order)


def find_system(system_id: str) -> SystemSpec | None:
    """The system registered under exactly ``system_id``, or None."""
    _discover()
    return _SYSTEMS.get(system_id)


def get_system(name: str) -> SystemSpec:
    """Find a system by id (``treereview``), folder (``tree``) or label (``TreeReview``)."""
    _discover()
    low = name.strip().lower()
    for spec in _SYSTEMS.values():
        if low in _names(spec):
            return spec
    raise KeyError(f"unknown reviewer system {name!r}; known systems: {', '.join(_SYSTEMS)}")


def file_systems() -> dict[str, SystemSpec]:
    """Folder name → spec of the systems stored as one file per paper (``tree`` → TreeReview)."""
    return {s.folder: s for s in systems() if s.per_paper_files}


def system_order(ids: Iterable[str]) -> list[str]:
    """``ids`` (deduplicated) in table order: registered systems first, the rest by name."""
    rank = {s.id: i for i, s in enumerate(systems())}
    return sorted(set(ids), key=lambda s: (rank.get(s, len(rank)), s))

"""Names a user types (venues, systems, dimensions, option values): unknown ones are errors that
list the valid names, the closest first, so a typo is fixed in one look instead of running on
zero units."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class UnknownNameError(ValueError):
    """A name outside its valid set; the message lists the valid names, closest first."""

    def __init__(self, kind: str, name: str, valid: Iterable[str], *, where: str = "") -> None:
        self.kind = kind
        self.name = name
        self.valid = closest_first(name, valid)
        listed = ", ".join(self.valid) if self.valid else "(none)"
        place = f" in {where}" if where else ""
        super().__init__(f"unknown {kind} {name!r}{place}; valid {kind}s (closest first): {listed}")


def closest_first(name: str, valid: Iterable[str]) -> list[str]:
    """``valid`` (deduplicated) ordered by similarity to ``name``, case-insensitive; ties keep
    alphabetical order."""
    low = name.strip().lower()
    return sorted(
        set(valid), key=lambda v: (-difflib.SequenceMatcher(None, low, v.lower()).ratio(), v)
    )


def check_choice(kind: str, value: str, valid: Iterable[str]) -> str:
    """``value`` when it is one of ``valid`` (exactly), else :class:`UnknownNameError`."""
    choices = list(valid)
    if value not in choices:
        raise UnknownNameError(kind, value, choices)
    return value

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


#: the Table 1 row of the human reviews scored against the human-only flaw bank
HUMAN_ONLY_ROW = "human-only-bank"
#: suffix of Table 1's panel-reference rows (``<system>@panel``)
PANEL_SUFFIX = "@panel"
#: files and folders the project reads or writes by name, in a venue folder or a run folder
RESERVED_FILES = frozenset({
    "papers", "paper_metadata.jsonl", "results.jsonl", "results.json", "errors.jsonl",
    "manifest.json", "summary.csv", "summary.md", "report.html", "audit.jsonl", "batches.json",
    "results.quarantine.jsonl", "predictions.jsonl", "fidelity_card.json", "reviews.jsonl",
})


def reserved_name_problem(name: str) -> str | None:
    """Why ``name`` may not name a reviewer system (it becomes a system id, a Table 1 row, a key
    of ``results.jsonl`` and a folder of each venue), or None when it may. Names taken by
    another registered system are the registry's check."""
    if not name.strip():
        return "it is empty"
    if name != name.strip():
        return "it starts or ends with white space"
    if any(ch in name for ch in "/\\") or any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return "it holds a path separator or a control character"
    if name.startswith("."):
        return "it starts with '.' (hidden files, the run folder's .lock)"
    low = name.lower()
    if low == HUMAN_ONLY_ROW:
        return f"{HUMAN_ONLY_ROW!r} is Table 1's row of the human reviews scored on the human-only bank"
    if "@" in name:
        return (f"'@' is reserved: Table 1 names panel-reference rows '<system>{PANEL_SUFFIX}' and "
                "a judge string puts the model's address after '@'")
    if low in RESERVED_FILES or low.startswith("paper_ids_"):
        return f"{name!r} is the name of a file or folder the project reads or writes"
    return None

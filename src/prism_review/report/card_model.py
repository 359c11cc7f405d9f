"""The judge card's data model: classes, entries, and the checks a card file must pass.

Shared by the offline judge's shipped card (:mod:`prism_review.report.fidelity`) and the cards
``prism agreement`` records for other judges (:mod:`prism_review.report.judge_card`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

CLASSES: dict[str, str] = {
    "comparable": "comparable to PRISM's scale",
    "ranking_only": "ranking only (orders systems; the absolute level differs from PRISM's)",
    "not_informative": "not informative offline",
}
STATUSES = ("measured", "provisional")
UNMEASURED = "unmeasured"
#: the markers Table 1 cells carry, with the legend's wording
MARKERS: dict[str, str] = {"ranking_only": "†", "not_informative": "‡"}
SHORT: dict[str, str] = {
    "comparable": "comparable",
    "ranking_only": "ranking only",
    "not_informative": "not informative",
    UNMEASURED: "unmeasured",
}

CARD_FILE = "fidelity_card.json"


class CardError(ValueError):
    """The card file is malformed (names the file and the entry)."""


@dataclass(frozen=True)
class Entry:
    """One metric's place on the card."""

    dimension: str
    metric: str
    label: str
    cls: str
    figure: str
    command: str
    status: str
    owner: str

    @property
    def comparable(self) -> bool:
        return self.cls == "comparable"


@dataclass(frozen=True)
class Card:
    """The whole card: which judge it describes, its classification rule and its entries."""

    judge: str
    rule: str
    entries: tuple[Entry, ...]

    def get(self, dimension: str, metric: str) -> Entry | None:
        for e in self.entries:
            if e.dimension == dimension and e.metric == metric:
                return e
        return None


_FIELDS = ("dimension", "metric", "label", "class", "figure", "command", "status", "owner")


def parse_card(data: dict[str, Any], source: str = CARD_FILE) -> Card:
    """Check and build a :class:`Card` from the card's JSON content."""
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise CardError(f"{source}: expected an object with an 'entries' list")
    entries = []
    seen: set[tuple[str, str]] = set()
    for i, raw in enumerate(data["entries"]):
        where = f"{source}: entries[{i}]"
        if not isinstance(raw, dict):
            raise CardError(f"{where}: not an object")
        missing = [f for f in _FIELDS if not isinstance(raw.get(f), str) or not raw[f].strip()]
        if missing:
            raise CardError(f"{where}: missing or empty field(s) {', '.join(missing)}")
        if raw["class"] not in CLASSES:
            raise CardError(f"{where}: class {raw['class']!r} is not one of {', '.join(CLASSES)}")
        if raw["status"] not in STATUSES:
            raise CardError(f"{where}: status {raw['status']!r} is not one of {', '.join(STATUSES)}")
        key = (raw["dimension"], raw["metric"])
        if key in seen:
            raise CardError(f"{where}: {key[0]}.{key[1]} appears twice")
        seen.add(key)
        entries.append(
            Entry(
                dimension=raw["dimension"],
                metric=raw["metric"],
                label=raw["label"],
                cls=raw["class"],
                figure=raw["figure"],
                command=raw["command"],
                status=raw["status"],
                owner=raw["owner"],
            )
        )
    return Card(judge=str(data.get("judge", "offline")), rule=str(data.get("rule", "")), entries=tuple(entries))


def card_path() -> Path:
    return Path(str(resources.files("prism_review") / "resources" / CARD_FILE))


def read_card_file(p: Path, what: str = "judge card") -> Card:
    """The card in file ``p``, read and checked (:class:`CardError` names the file)."""
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CardError(f"{p}: cannot read the {what} ({exc})") from exc
    return parse_card(data, str(p))


@lru_cache(maxsize=2)
def load_card(path: str | None = None) -> Card:
    """The shipped card (or the one at ``path``)."""
    return read_card_file(Path(path) if path else card_path(), "fidelity card")

"""Every judge's card: how far each column's numbers can be trusted, for the run's judge.

The offline judge's card ships with the package (:mod:`prism_review.report.fidelity`). Any other
judge's card is written by ``prism agreement --judge J`` (:mod:`prism_review.report.card_record`)
into ``<cache>/judge_cards/<J>.json`` (or ``--card PATH``) and found there by ``prism evaluate``,
``prism compare`` and the report. A column the card has no entry for is ``unmeasured``.

:func:`column_classes` gives the class of each metric of a dimension; ``prism compare`` and the
report's comparisons never make a finding (star, "better") of a ``not_informative`` one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from prism_review.report.fidelity import CLASSES, Card, CardError, load_card, parse_card

UNMEASURED = "unmeasured"
#: the markers Table 1 cells carry, with the legend's wording
MARKERS: dict[str, str] = {"ranking_only": "†", "not_informative": "‡"}
SHORT: dict[str, str] = {
    "comparable": "comparable",
    "ranking_only": "ranking only",
    "not_informative": "not informative",
    UNMEASURED: "unmeasured",
}


def judge_of(manifest: dict[str, Any]) -> str:
    """The ``--judge`` string of a run (``offline`` for the offline judge)."""
    judge = manifest.get("judge") or {}
    name = (judge.get("judge") or judge.get("name")) if isinstance(judge, dict) else judge
    if str(name or "") == "offline":
        return "offline"
    return str(manifest.get("judge_spec") or name or "?")


def cards_dir() -> Path:
    from prism_review.cache_dir import cache_root

    return cache_root() / "judge_cards"


def card_file(judge: str) -> Path:
    """Where ``prism agreement --judge J`` keeps J's card (a file-name-safe form of J)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", judge).strip("._") or "judge"
    return cards_dir() / f"{safe}.json"


def read_card(path: Path) -> Card | None:
    """The card at ``path`` (None: no file there)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CardError(f"{path}: cannot read the judge card ({exc})") from exc
    return parse_card(data, str(path))


def card_for(judge: str, path: Path | None = None) -> Card | None:
    """The card of ``judge``: the shipped one for offline, else the one ``prism agreement``
    recorded (at ``path`` when given); None when the judge was never measured."""
    if path is not None:
        return read_card(path)
    if judge == "offline":
        return load_card()
    return read_card(card_file(judge))


def run_card(manifest: dict[str, Any]) -> Card | None:
    """The card of a run's judge (a damaged card file reads as no card)."""
    try:
        return card_for(judge_of(manifest))
    except CardError:
        return None


def column_class(card: Card | None, dimension: str, metric: str) -> str:
    e = card.get(dimension, metric) if card is not None else None
    return e.cls if e is not None else UNMEASURED


def column_classes(card: Card | None, dims: list[str]) -> dict[str, dict[str, str]]:
    """``{dimension: {metric: class}}`` of the card's entries (metrics absent: unmeasured)."""
    out: dict[str, dict[str, str]] = {d: {} for d in dims}
    for e in card.entries if card is not None else ():
        if e.dimension in out:
            out[e.dimension][e.metric] = e.cls
    return out


def class_text(cls: str) -> str:
    return CLASSES.get(cls, "unmeasured: no card entry")


def run_manifest(run: Path) -> dict[str, Any]:
    """The manifest next to a results log (a run folder or its ``results.jsonl``); {} if none."""
    folder = run if run.is_dir() else run.parent
    try:
        return dict(json.loads((folder / "manifest.json").read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError, TypeError, ValueError):
        return {}


def no_finding_line(judge: str, metrics: list[str]) -> str:
    """The one line under a comparison that says why some columns carry no finding."""
    return (f"no finding on {', '.join(metrics)}: the {judge} judge's card calls them not informative "
            "(the difference and CI are shown; no star, never 'better'; `prism agreement --dataset all`)")

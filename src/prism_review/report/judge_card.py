"""Every judge's card: how far each column's numbers can be trusted, for the run's judge.

The offline judge's card ships with the package (:mod:`prism_review.report.fidelity`). Any other
judge's card is written by ``prism agreement --judge J`` (:mod:`prism_review.report.card_record`)
into ``<cache>/judge_cards/<J>.json`` (or ``--card PATH``) and found there by ``prism evaluate``,
``prism compare`` and the report. A card kept elsewhere is named with ``prism evaluate --card
PATH`` or ``prism report --card PATH``; the run's manifest keeps its path (``card_file``), so
every later reading of the run uses it. A column the card has no entry for is ``unmeasured``.

:func:`column_classes` gives the class of each metric of a dimension; ``prism compare`` and the
report's comparisons never make a finding (star, "better") of a ``not_informative`` one.
"""

from __future__ import annotations

import json
import re
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

from prism_review.report.card_model import (  # noqa: F401  (MARKERS, SHORT, UNMEASURED: re-exported)
    CLASSES,
    MARKERS,
    SHORT,
    UNMEASURED,
    Card,
    CardError,
    load_card,
    read_card_file,
)


def judge_name(manifest: dict[str, Any]) -> str:
    """The name a run's manifest records for its judge ("": none); ``offline`` for the offline one."""
    judge = manifest.get("judge") or {}
    name = (judge.get("judge") or judge.get("name")) if isinstance(judge, dict) else judge
    return str(name or "")


def judge_of(manifest: dict[str, Any]) -> str:
    """The ``--judge`` string of a run (``offline`` for the offline judge)."""
    name = judge_name(manifest)
    if name == "offline":
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
    """The card at ``path`` (None: no file there). Read once per version of the file: a command
    asks for its run's card many times (manifest, notes, markers, comparisons), and every answer
    must come from the same card, also while ``prism agreement`` rewrites it."""
    try:
        st = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return _read_version(str(path), st.st_ino, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _read_version(path: str, inode: int, mtime_ns: int, size: int) -> Card:
    """One version of a card file (the key is the file's identity; an atomic rewrite is a new
    one); a damaged file raises :class:`CardError` each time (exceptions are not cached)."""
    return read_card_file(Path(path))


def card_for(judge: str, path: Path | None = None) -> Card | None:
    """The card of ``judge``: the shipped one for offline, else the one ``prism agreement``
    recorded (at ``path`` when given); None when the judge was never measured."""
    if path is not None:
        return read_card(path)
    if judge == "offline":
        return load_card()
    return read_card(card_file(judge))


def given_card(path: Path, judge: str) -> Path:
    """``--card PATH`` checked: a readable card of ``judge`` (else :class:`CardError`); returns
    its absolute path, which the run's manifest keeps."""
    from prism_review.llm.credentials import mask_urls

    card = read_card(path)
    if card is None:
        raise CardError(f"--card {path}: no judge card there (`prism agreement --judge {judge} --card "
                        f"{path}` writes one)")
    if mask_urls(card.judge) != mask_urls(judge):
        raise CardError(f"--card {path}: the card is the {card.judge} judge's, not {judge}'s")
    return path.resolve()


def run_card_file(manifest: dict[str, Any]) -> Path | None:
    """The card file a run was given (``--card``; None: its judge's default card)."""
    given = manifest.get("card_file")
    return Path(given) if given else None


def card_source(manifest: dict[str, Any]) -> Path:
    """Where a run's judge card is read: the ``--card`` file, else the judge's in the cache."""
    return run_card_file(manifest) or card_file(judge_of(manifest))


def run_card(manifest: dict[str, Any]) -> Card | None:
    """The card of a run's judge, its ``--card`` file when given (a damaged card file reads as
    no card)."""
    try:
        return card_for(judge_of(manifest), run_card_file(manifest))
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


def measure_command(judge: str, dimension: str, metric: str) -> str | None:
    """The exact ``prism agreement`` command(s) that measure a column for ``judge`` (None: no
    agreement task measures it)."""
    from prism_review.agreement import DEFAULT_FILES
    from prism_review.report.card_rules import rules_for
    from prism_review.shared_folder import DATA

    cmds = [f"prism agreement --judge {judge} --dataset {r.dataset} --file {DATA / DEFAULT_FILES[r.dataset]}"
            for r in rules_for(dimension, metric)]
    return "; ".join(dict.fromkeys(cmds)) or None


def column_lines(judge: str, card: Card | None, columns: list[tuple[str, str, str]]) -> list[str]:
    """One ``- `` line per (dimension, metric, label) column: its measured class and figure, or
    that it is unmeasured with the command that measures it."""
    from prism_review.report.card_rules import NO_TASK

    lines = []
    for dim, metric, label in columns:
        e = card.get(dim, metric) if card is not None else None
        if e is not None:
            lines.append(f"- {label}{MARKERS.get(e.cls, '')}: {CLASSES[e.cls]}. {e.figure}")
            continue
        cmd = measure_command(judge, dim, metric)
        if cmd:
            lines.append(f"- {label}: unmeasured for {judge}; measure it with `{cmd}`")
        else:
            why = NO_TASK.get((dim, metric), "no agreement task measures this column")
            lines.append(f"- {label}: unmeasured; no agreement task measures it ({why})")
    return lines


def judge_note(manifest: dict[str, Any], dims: list[Any]) -> list[str]:
    """The note under Table 1 of a run whose judge is not the offline one: per column, what its
    judge card says, or that the judge was never measured and how to measure it."""
    from prism_review.pipelines.summary import headline_specs

    judge = judge_of(manifest)
    columns = [(d.name, s.key, s.label) for d in dims for s in headline_specs(d)]
    card = run_card(manifest)
    if card is None:
        head = (f"Judge {judge} is unmeasured: no judge card ({card_source(manifest)}), so nothing vouches for "
                "these Table-1 columns against human labels:")
    else:
        head = f"Judge {judge}: how far each Table-1 column can be trusted (judge card {card_source(manifest)}):"
    return [head, *column_lines(judge, card, columns)]


def manifest_card(manifest: dict[str, Any], dims: list[Any]) -> dict[str, Any]:
    """What ``manifest.json`` records of the run's judge card, per Table-1 column."""
    from prism_review.pipelines.summary import headline_specs

    judge = judge_of(manifest)
    card = run_card(manifest)
    given = run_card_file(manifest)
    source = "shipped fidelity card" if judge == "offline" and given is None else str(card_source(manifest))
    cols: dict[str, Any] = {}
    for d in dims:
        for s in headline_specs(d):
            e = card.get(d.name, s.key) if card is not None else None
            cols[f"{d.name}.{s.key}"] = (
                {"class": e.cls, "figure": e.figure, "command": e.command} if e is not None
                else {"class": UNMEASURED, "figure": None, "command": measure_command(judge, d.name, s.key)})
    return {"judge": judge, "card": source if card is not None else None, "columns": cols}


def table_marks(manifest: dict[str, Any]) -> dict[tuple[str, str], str]:
    """``{(dimension, metric): marker}`` for the columns the run judge's card calls ranking only
    (†) or not informative (‡): the marker every cell of such a column carries."""
    card = run_card(manifest)
    return {(e.dimension, e.metric): MARKERS[e.cls] for e in (card.entries if card else ()) if e.cls in MARKERS}


def legend(marks: dict[tuple[str, str], str]) -> str | None:
    """The one line that says what the markers in the table cells mean (None: no marker)."""
    used = set(marks.values())
    if not used:
        return None
    parts = [f"{m} {SHORT[c]}" for c, m in MARKERS.items() if m in used]
    return ("Cell markers (the judge's card): " + " · ".join(parts)
            + "; unmarked: comparable, or not on the card (see the lines below)")

"""What a run reads: papers and reviews of a layout, and every input it skipped, counted.

``collect_inputs`` walks the venues, papers and systems of an :class:`EvalLayout` the way
``prism evaluate`` needs them and never drops anything silently: an input that cannot be used
is a *problem* (an error: the file is malformed, unsafe or unusable; the run exits 1, and
``prism data validate`` reports the same thing) or a *skip* (an entry left out by design and
counted, e.g. a human review holding only a rating, or a text cut to the length limit). Both
are listed in ``<out>/errors.jsonl``, the CLI summary and the report header.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prism_review.atomic import write_text
from prism_review.data.jsonl import iter_lines
from prism_review.guards.errors import DataError

#: ``kind`` of an errors.jsonl row for an input problem / a counted skip
PROBLEM, SKIP = "input", "skip"
#: unit-failure and note lines errors.jsonl keeps over all the runs of a folder (a run writes at
#: most ``outcomes.MAX_FAILURE_ROWS`` and a note): the newest are kept, the older ones counted
MAX_KEPT_LINES = 1_002


@dataclass
class Inputs:
    """What :func:`collect_inputs` found: the readable items and every input problem or skip."""

    items: list[Any] = field(default_factory=list)
    #: errors.jsonl rows (``kind`` input or skip), in the order found
    issues: list[dict[str, Any]] = field(default_factory=list)

    @property
    def problems(self) -> list[dict[str, Any]]:
        return [i for i in self.issues if i["kind"] == PROBLEM]

    @property
    def skips(self) -> list[dict[str, Any]]:
        return [i for i in self.issues if i["kind"] == SKIP]


def issue(
    kind: str, err: DataError, *, venue: str = "", paper_id: str = "", system: str | None = None
) -> dict[str, Any]:
    """An errors.jsonl row for an input problem or skip."""
    return {
        "kind": kind,
        "venue": venue,
        "paper_id": paper_id,
        "system": system,
        "path": err.path,
        "field": err.field,
        "error": str(err),
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def item_issues(item: Any) -> list[dict[str, Any]]:
    """errors.jsonl rows for one source item's unreadable paper or review files."""
    return [issue(PROBLEM, exc, venue=item.venue, paper_id=item.paper_id, system=system)
            for system, exc in item.errors]


def source_issues(source: Any, venues: list[str]) -> list[dict[str, Any]]:
    """The source's own problems and counted skips, once its items have been read: unreadable
    rows, paths out of the root, unsafe manifest ids; for a layout also folders that look like
    venues but are not, review files of papers without text, and entries skipped by design."""
    from prism_review.data.layout import list_paper_ids, unknown_folders

    out = [issue(PROBLEM, err) for err in source.problems()]
    layout = getattr(source, "layout", None)
    if layout is None:
        return out
    for folder in unknown_folders(layout.root):
        out.append(issue(PROBLEM, DataError(folder, "not a known venue folder; skipped")))
    for venue in venues:
        with_text = set(list_paper_ids(layout.venue_dir(venue) / "papers"))
        for err in _orphan_reviews(layout, venue, layout.systems(venue), with_text):
            out.append(issue(PROBLEM, err, venue=venue))
    out += [issue(SKIP, DataError(path, note)) for path, note in layout.skipped]
    return out


def record_input_issues(
    source: Any,
    load_errors: list[dict[str, Any]],
    errors_path: Path,
    log: Any,
    venues: list[str] | None = None,
) -> None:
    """Add the source's issues to ``load_errors`` and put them all in ``errors.jsonl`` (replacing
    the input rows of earlier runs of the folder). ``venues``: those the run read (all: None)."""
    seen = _seen_venues(source)
    load_errors.extend(source_issues(source, [v for v in seen if venues is None or v in venues]))
    # a batch run reads the source once per pass, and the source counts its skips on every read
    unique = {tuple(e.get(k) for k in ("kind", "venue", "paper_id", "system", "path", "field",
                                       "error")): e for e in load_errors}
    load_errors[:] = list(unique.values())
    write_input_issues(errors_path, load_errors)
    if load_errors:
        log(f"{len(load_errors)} input(s) skipped (see errors.jsonl)")


def _seen_venues(source: Any) -> list[str]:
    try:
        return list(source.venues())
    except Exception:  # noqa: BLE001 - a source that cannot list venues has no layout extras
        return []


def collect_inputs(source: Any, venues: list[str] | None = None, limit: int | None = None) -> Inputs:
    """Read a source the way ``prism evaluate`` does and return its items and every issue."""
    found = Inputs()
    for item in source.items(venues=venues, limit=limit):
        found.issues += item_issues(item)
        if item.paper is not None:
            found.items.append(item)
    found.issues += source_issues(source, list(venues or source.venues()))
    return found


def _orphan_reviews(
    layout: Any, venue: str, systems: list[str], with_text: set[str]
) -> Iterator[DataError]:
    """Review files of per-paper-file systems, and rows of the bring-your-own folders the run
    read, naming a paper that has no text file (without this such a row was dropped unsaid)."""
    from prism_review.systems.registry import find_system
    from prism_review.systems.spec import id_from_filename

    vdir = layout.venue_dir(venue)
    for sid in systems:
        spec = find_system(sid)
        if spec is None or not spec.per_paper_files:
            continue
        folder = vdir / spec.folder
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            pid = id_from_filename(path.name, spec.suffixes)
            if pid is not None and not path.name.startswith(".") and pid not in with_text:
                yield DataError(path, f"review of paper {pid!r}, which has no text in papers/; "
                                "skipped", field=pid)
    for store in layout.opened_stores(venue).values():
        index = getattr(store, "index", None)  # ByoSource: paper id → (file, line, offset)
        for pid in store.paper_ids():
            if pid in with_text:
                continue
            rows = index()[pid] if callable(index) else [(getattr(store, "folder", vdir), None, 0)]
            for path, line_no, _offset in rows:
                where = f"line {line_no}: paper_id" if line_no else "paper_id"
                yield DataError(path, f"review of paper {pid!r}, which has no text in papers/; "
                                "skipped", field=where)


def write_input_issues(path: Path, issues: list[dict[str, Any]]) -> None:
    """Put this run's input rows in ``errors.jsonl``: the input rows of earlier runs of the
    folder are replaced (they are found again on every run), unit failures are kept."""
    kept: list[str] = []
    if path.exists():
        for _, raw in iter_lines(path):
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            try:
                kind = json.loads(line).get("kind")
            except (ValueError, AttributeError):
                kind = None
            if kind not in {PROBLEM, SKIP}:
                kept.append(line)
    if not kept and not issues:
        return
    if len(kept) > MAX_KEPT_LINES:  # a folder resumed many times must not grow without bound
        dropped = len(kept) - MAX_KEPT_LINES
        note = {"kind": "note", "error": f"{dropped} older line(s) of earlier runs' unit failures "
                f"dropped here (errors.jsonl keeps the newest {MAX_KEPT_LINES})",
                "time": datetime.now(UTC).isoformat(timespec="seconds")}
        kept = [json.dumps(note)] + kept[-MAX_KEPT_LINES:]
    rows = kept + [json.dumps(i, ensure_ascii=False) for i in issues]
    write_text(path, "\n".join(rows) + "\n")

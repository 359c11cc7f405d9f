"""Bring-your-own reviewer systems: JSON Lines, one review per row (see docs/byo-format.md).

A row is ``{"paper_id", "reviewer_id"?, "sections"? | "text"? | "comments"?, "scores"?,
"rating"?}``; at least one of ``sections``, ``text`` or ``comments`` must hold text. Several may be
given; they are used in that order. ``comments`` is OpenAIReview's quote-anchored format
(``title``, ``quote``, ``explanation``, ``comment_type``, optional ``paragraph_index``): each
comment becomes a section named ``Comment k: <title>`` (a critique: the text policies count it
as a weakness) whose text is the quote (as a ``>`` line) followed by the explanation; the
original list stays in ``extra["comments"]``.

A folder is indexed once (byte offsets per paper id, not the rows), so large files stay cheap.
Each BYO folder is a reviewer system of its own: :func:`byo_spec` is its
:class:`~prism_review.systems.spec.SystemSpec` (a :class:`ByoSource` store, the clean text
policy, and the generation hooks ``prism review generate`` writes ``reviews.jsonl`` rows with).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prism_review.guards import limits
from prism_review.guards.errors import DataError
from prism_review.guards.limits import json_problem, loads
from prism_review.guards.safepath import inside, is_inside
from prism_review.records import Review, Section
from prism_review.systems.base import LLM_REVIEWER_ID, without_think
from prism_review.systems.parsing import family, split_hash_sections
from prism_review.systems.spec import GenerationHooks, SystemSpec
from prism_review.venues import Scale, get_venue, leading_number

#: the file ``prism review generate`` writes a generated system's reviews to
REVIEWS_FILE = "reviews.jsonl"


def byo_files(folder: Path) -> list[Path]:
    """The JSONL files of a BYO folder: ``reviews.jsonl`` first, then other ``*.jsonl`` sorted."""
    files = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    files.sort(key=lambda p: p.name != "reviews.jsonl")
    return files


def is_byo_folder(folder: Path) -> bool:
    """True when ``folder`` holds at least one ``*.jsonl`` file."""
    return folder.is_dir() and bool(byo_files(folder))


def parse_row(path: Path, line_no: int, line: bytes | str) -> dict[str, Any]:
    """Decode and type-check one row; problems raise :class:`DataError` naming file and line."""
    where = f"line {line_no}"
    if len(line) > limits.MAX_LINE_BYTES:
        limit = limits.MAX_LINE_BYTES
        raise DataError(path, f"line is {len(line):,} bytes, over the {limit:,}-byte limit",
                        field=where)
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(path, f"not valid UTF-8 (byte {exc.start})", field=where) from exc
    try:
        row = loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(path, json_problem(exc, lines=False), field=where) from exc
    if not isinstance(row, dict):
        raise DataError(path, f"expected an object, got {type(row).__name__}", field=where)
    pid = row.get("paper_id")
    if not isinstance(pid, str | int) or isinstance(pid, bool) or not str(pid).strip():
        raise DataError(path, "missing or not a string", field=f"{where}: paper_id")
    rid = row.get("reviewer_id")
    if rid is not None and (not isinstance(rid, str | int) or isinstance(rid, bool)):
        raise DataError(path, f"expected a string, got {type(rid).__name__}",
                        field=f"{where}: reviewer_id")
    if row.get("scores") is not None and not isinstance(row["scores"], dict):
        raise DataError(path, f"expected an object, got {type(row['scores']).__name__}",
                        field=f"{where}: scores")
    for name, value in (row.get("scores") or {}).items():  # a list score read as no score
        if value is not None and (isinstance(value, bool) or not isinstance(value, str | int | float)):
            raise DataError(path, f"expected a number or string, got {type(value).__name__}",
                            field=f"{where}: scores.{name}")
    rating = row.get("rating")
    if rating is not None and not isinstance(rating, str | int | float):
        raise DataError(path, f"expected a number or string, got {type(rating).__name__}",
                        field=f"{where}: rating")
    if not row_sections(path, where, row):
        raise DataError(path, "row has no review text (sections, text or comments)", field=where)
    return row


def row_sections(path: Path, where: str, row: dict[str, Any]) -> list[Section]:
    """The ordered sections of a row (type errors raise :class:`DataError`)."""
    out: list[Section] = []
    secs = row.get("sections")
    if secs is not None:
        if not isinstance(secs, list):
            raise DataError(
                path, f"expected a list, got {type(secs).__name__}", field=f"{where}: sections"
            )
        for i, s in enumerate(secs):
            if (
                not isinstance(s, dict)
                or not isinstance(s.get("text", ""), str)
                or not isinstance(s.get("name", ""), str)
            ):
                raise DataError(
                    path, "expected {name: str, text: str}", field=f"{where}: sections[{i}]"
                )
            if s.get("text", "").strip():
                out.append(Section(name=s.get("name", "").strip(), text=s["text"].strip()))
    text = row.get("text")
    if text is not None:
        if not isinstance(text, str):
            raise DataError(
                path, f"expected a string, got {type(text).__name__}", field=f"{where}: text"
            )
        # a text far over the review cap is cut before splitting (splitting 50 MB takes
        # minutes); the layout's cap records the cut with the full length (``source_chars``)
        out.extend(split_hash_sections(without_think(text[: _split_budget()])[1]))
    comments = row.get("comments")
    if comments is not None:
        if not isinstance(comments, list):
            raise DataError(
                path, f"expected a list, got {type(comments).__name__}", field=f"{where}: comments"
            )
        for i, c in enumerate(comments):
            if not isinstance(c, dict):
                raise DataError(path, "expected an object", field=f"{where}: comments[{i}]")
            expl, quote, title = (c.get(k) or "" for k in ("explanation", "quote", "title"))
            if not all(isinstance(x, str) for x in (expl, quote, title)):
                raise DataError(
                    path, "title/quote/explanation must be strings", field=f"{where}: comments[{i}]"
                )
            body = "\n\n".join(
                p for p in ((f"> {quote.strip()}" if quote.strip() else ""), expl.strip()) if p
            )
            if body:
                label = f"Comment {i + 1}" + (f": {title.strip()}" if title.strip() else "")
                out.append(Section(name=label, text=body))
    return out


def _split_budget() -> int:
    return 2 * limits.MAX_REVIEW_CHARS


def source_chars(row: dict[str, Any]) -> int:
    """Characters of review text a row holds before any cut."""
    n = len(row["text"]) if isinstance(row.get("text"), str) else 0
    for s in row.get("sections") or []:
        n += len(s.get("text", "")) if isinstance(s, dict) and isinstance(s.get("text"), str) else 0
    return n


def _scale_for(venue: str, name: str) -> Scale | None:
    v = get_venue(venue)
    fam = family(name)
    if fam == "rating":
        return v.rating_scale
    return v.score_fields.get(name) or v.score_fields.get(fam.capitalize())


class ByoSource:
    """An indexed BYO folder: ``reviews(paper_id)`` parses only that paper's rows."""

    def __init__(self, folder: Path, system: str, *, root: Path | None = None) -> None:
        self.folder = folder
        self.system = system
        #: files resolving outside ``root`` (a symlinked ``reviews.jsonl``) are refused
        self.root = root
        self._index: dict[str, list[tuple[Path, int, int]]] | None = None
        #: rows that could not be read (each names file and line); they are skipped, the
        #: folder's other rows still load
        self.problems: list[DataError] = []
        #: ``(path, note)`` for each file or row not read because it repeats one read already
        #: (a symbolic or hard link to another file, a copy of it, a repeated row): counted once
        self.skipped: list[tuple[str, str]] = []

    def index(self) -> dict[str, list[tuple[Path, int, int]]]:
        """paper id → [(file, line number, byte offset)], built on first use; a bad row is
        skipped and recorded in :attr:`problems`."""
        if self._index is None:
            idx: dict[str, list[tuple[Path, int, int]]] = defaultdict(list)
            files = _Seen()
            rows: dict[bytes, tuple[Path, int]] = {}  # a row's digest -> its first place
            for path in byo_files(self.folder):
                if self.root is not None and not is_inside(self.root, path):
                    self.problems.append(_outside(path, self.root))
                    continue
                twin = files.twin(path)
                if twin is not None:
                    self.skipped.append((str(path), twin))
                    continue
                for line_no, offset, line in _lines(path):
                    try:
                        row = parse_row(path, line_no, line)
                    except DataError as exc:
                        self.problems.append(exc)
                        continue
                    digest = hashlib.sha256(line.strip()).digest()
                    if digest in rows:
                        first, first_no = rows[digest]
                        self.skipped.append((f"{path}:{line_no}", f"not read: the same row as "
                                             f"{first.name} line {first_no} (counted once)"))
                        continue
                    rows[digest] = (path, line_no)
                    idx[str(row["paper_id"]).strip()].append((path, line_no, offset))
            self._index = dict(idx)
        return self._index

    def paper_ids(self) -> list[str]:
        """Paper ids with at least one row."""
        return list(self.index())

    def reviews(self, paper_id: str, venue: str) -> list[Review]:
        """The rows of ``paper_id`` as Reviews, in file order."""
        out: list[Review] = []
        used: set[str] = set()
        for path, line_no, offset in self.index().get(paper_id, []):
            with path.open("rb") as fh:
                fh.seek(offset)
                line = fh.readline()
            row = parse_row(path, line_no, line)
            out.append(self._review(path, line_no, row, paper_id, venue, used))
        return out

    def _review(
        self,
        path: Path,
        line_no: int,
        row: dict[str, Any],
        paper_id: str,
        venue: str,
        used: set[str],
    ) -> Review:
        where = f"line {line_no}"
        rid = str(row.get("reviewer_id") or LLM_REVIEWER_ID)
        base, k = rid, 2
        while rid in used:
            rid, k = f"{base}_{k}", k + 1
        used.add(rid)
        raw_scores: dict[str, Any] = {}
        scores: dict[str, float | None] = {}
        given = dict(row.get("scores") or {}) if isinstance(row.get("scores"), dict) else {}
        if row.get("rating") is not None:
            given.setdefault("Rating", row["rating"])
        for name, value in given.items():
            raw_scores[name] = value
            scale, num = _scale_for(venue, name), leading_number(value)
            scores[name] = scale.normalise(num) if scale and num is not None else None
        extra: dict[str, Any] = {
            "raw_text": json.dumps(row, ensure_ascii=False),
            "byo_line": line_no,
            "source_chars": source_chars(row),
        }
        if row.get("comments"):
            extra["comments"] = row["comments"]
        if isinstance(row.get("extra"), dict):
            extra.update(row["extra"])
        return Review(
            paper_id=paper_id,
            venue=venue,
            system=self.system,
            reviewer_id=rid,
            sections=row_sections(path, where, row),
            raw_scores=raw_scores,
            scores=scores,
            source_path=f"{path}:{line_no}",
            extra=extra,
        )


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line number, byte offset, raw line)`` for non-blank lines; split on ``\\n`` only."""
    offset = 0
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            start, offset = offset, offset + len(raw)
            if raw.strip():
                yield line_no, start, raw


class _Seen:
    """The files indexed so far, by (device, inode) and by size; a file is hashed only when an
    earlier one has its size (a copy has), so a folder's files are not all read twice."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[int, int], Path] = {}
        self.sizes: dict[int, list[Path]] = {}
        self._digests: dict[Path, bytes] = {}

    def twin(self, path: Path) -> str | None:
        """Why ``path`` is not read when it is a link to or a byte-for-byte copy of a file seen
        (which it joins otherwise), else None."""
        try:
            st = path.stat()
            node = (st.st_dev, st.st_ino)
            if node in self.nodes:
                return f"not read: a link to {self.nodes[node].name} (its rows counted once)"
            for other in self.sizes.get(st.st_size, []):
                if self._digest(other) == self._digest(path):
                    return f"not read: a copy of {other.name} (its rows counted once)"
        except OSError:
            return None  # the read that follows names the file
        self.nodes[node] = path
        self.sizes.setdefault(st.st_size, []).append(path)
        return None

    def _digest(self, path: Path) -> bytes:
        if path not in self._digests:
            digest = hashlib.sha256()
            with path.open("rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
            self._digests[path] = digest.digest()
        return self._digests[path]


def _outside(path: Path, root: Path) -> DataError:
    try:
        inside(root, path)
    except DataError as exc:
        return exc
    raise AssertionError("path is inside the root")  # pragma: no cover


def check_folder(folder: Path, root: Path | None = None) -> list[tuple[str, str | None, str]]:
    """Every problem of a BYO folder as ``(path, field, message)`` (all rows checked; files
    resolving outside ``root`` are problems, not read)."""
    problems: list[tuple[str, str | None, str]] = []
    for path in byo_files(folder):
        if root is not None and not is_inside(root, path):
            problems.append((str(path), None, _outside(path, root).message))
            continue
        try:
            for line_no, _off, line in _lines(path):
                try:
                    parse_row(path, line_no, line)
                except DataError as exc:
                    problems.append((str(path), exc.field, exc.message))
        except OSError as exc:
            problems.append((str(path), None, f"cannot read file ({exc.strerror})"))
    return problems


def generated_row(paper_id: str, venue: str, draft: Any, *, rating: float | None,
                  reviewer_id: str, generator: str, truncated: bool) -> dict[str, Any]:  # fmt: skip
    """The BYO row of a generated review (``draft``: the generation step's output; ``rating``:
    its rating on the venue's scale, None when outside it; scores on the venue's raw scale)."""
    v = get_venue(venue)
    scores: dict[str, Any] = {}
    if rating is not None:
        scores[v.rating_field] = rating
    if "Confidence" in v.score_fields and 1 <= draft.confidence <= 5:
        scores["Confidence"] = draft.confidence
    return {
        "paper_id": paper_id,
        "reviewer_id": reviewer_id,
        "sections": [s.model_dump() for s in draft.sections()],
        "scores": scores,
        "extra": {"generator": generator, "raw_rating": draft.rating, "paper_truncated": truncated},
    }


def _open(folder: Path, system: str, root: Path | None) -> ByoSource:
    return ByoSource(folder, system, root=root)


GENERATION = GenerationHooks(file=REVIEWS_FILE, row=generated_row)


def byo_spec(folder_name: str) -> SystemSpec:
    """The system of a bring-your-own JSONL folder: id, folder and label are its name."""
    return SystemSpec(id=folder_name, store=_open, generation=GENERATION)

"""What a reviewer system is: one :class:`SystemSpec`, declared in the system's own module.

A spec says where the system's reviews are (``folder`` in each venue folder, and either per-paper
file ``patterns`` read by ``load`` or a folder-level ``store`` such as the bring-your-own JSONL
reader), how a file is checked (``check``), which review-text policy the dimensions apply
(``text``) and whether ``prism review generate`` may write reviews for it (``generation``).
Specs are collected by :mod:`prism_review.systems.registry`; everything else (the layout, its
validation, the text policies, Table 1's order, generation) reads them from there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from prism_review.records import Review

#: ``(field or None, message)`` problems of one file
Problems = list[tuple[str | None, str]]


class Loaded(NamedTuple):
    """Reviews read from one file, and a note for each entry skipped by design (no text)."""

    reviews: list[Review]
    skipped: list[str]


#: ``load(path, paper_id, venue)``: the reviews of one paper's file (a list, or :class:`Loaded`
#: when entries can be skipped); malformed files raise :class:`~prism_review.guards.errors.DataError`
Loader = Callable[[Path, str, str], "list[Review] | Loaded"]


class ReviewStore(Protocol):
    """A folder holding many papers' reviews in its own format (e.g. bring-your-own JSONL)."""

    #: rows that could not be read (each names file and line); skipped, the others still load
    problems: list[Any]

    def paper_ids(self) -> list[str]: ...

    def reviews(self, paper_id: str, venue: str) -> list[Review]: ...


#: ``store(folder, system id, data root)``: open a folder-level store (``root`` refuses files
#: resolving outside it)
StoreFactory = Callable[[Path, str, "Path | None"], ReviewStore]


@dataclass(frozen=True)
class GenerationHooks:
    """How ``prism review generate`` writes a generated system's reviews.

    ``file``: the file in the system's folder the rows go to; ``row(paper_id, venue, draft,
    rating=, reviewer_id=, generator=, truncated=)``: one generated review as a row of that file
    (``rating``: the draft's rating snapped to the venue's scale, None when outside it).
    """

    file: str
    row: Callable[..., dict[str, Any]]


def _suffix(pattern: str) -> str:
    return pattern.split("{id}", 1)[1] if "{id}" in pattern else pattern


@dataclass(frozen=True)
class SystemSpec:
    """One reviewer system. ``folder`` and ``label`` default to ``id``.

    Per-paper files: ``patterns`` (preferred first, ``{id}`` is the paper id), ``load`` and
    ``check(data) -> problems`` — on the parsed JSON when ``check_json``, else on the path.
    Folder-level stores instead set ``store`` (and no patterns). The text policy is ``human``
    and ``compat``.
    """

    id: str
    folder: str = ""
    label: str = ""
    patterns: tuple[str, ...] = ()
    load: Loader | None = None
    check: Callable[[Any], Problems] | None = None
    check_json: bool = False
    #: a file yielding no review is no input problem for ``prism evaluate`` (a human review file
    #: listing no reviews is a paper without human reviews, as ``prism data export-layout``
    #: writes a paper whose reviews could not be read); else it is one ("no review text")
    may_be_empty: bool = False
    store: StoreFactory | None = None
    #: text policy: read as human reviews (each dimension's per-venue human selection, see
    #: :mod:`prism_review.systems.text_policy`) instead of its LLM/BYO selection
    human: bool = False
    #: text policy: the original PRISM code's extraction ``compat(review, dimension, clean_text)``
    #: for ``--compat``; None: no original behaviour, ``--compat`` judges the clean text. Removing
    #: ``<think>`` reasoning is the loader's job (``systems.base.single_llm_review``): the
    #: policies read its sections
    compat: Callable[[Review, str, str], str] | None = None
    generation: GenerationHooks | None = None
    #: position in tables and listings (lower first); ties keep registration order
    order: int = 100

    def __post_init__(self) -> None:
        if not self.id.strip() or "/" in self.id:
            raise ValueError(f"{self.id!r} is not a usable system id")
        object.__setattr__(self, "folder", self.folder or self.id)
        object.__setattr__(self, "label", self.label or self.id)
        if bool(self.patterns) == (self.store is not None):
            raise ValueError(f"system {self.id!r}: give either file patterns or a store")
        if self.patterns and self.load is None:
            raise ValueError(f"system {self.id!r}: file patterns need a load function")

    @property
    def per_paper_files(self) -> bool:
        """True when reviews are one file per paper (``patterns``), False for a store."""
        return bool(self.patterns)

    @property
    def suffixes(self) -> tuple[str, ...]:
        """The file-name endings of the patterns (``_review.json`` for ``{id}_review.json``)."""
        return tuple(dict.fromkeys(_suffix(p) for p in self.patterns))

    def find(self, folder: Path, paper_id: str) -> Path | None:
        """The file of ``paper_id`` in this system's ``folder`` (first pattern found), or None."""
        return self.locate(folder, paper_id)[0]

    def locate(self, folder: Path, paper_id: str) -> tuple[Path | None, list[tuple[Path, str]]]:
        """The file of ``paper_id`` in ``folder`` (first pattern found, or None) and a note for
        each file not read so that a review counts once: a second file of the same paper (another
        pattern, or a link to the first), and a link to another paper's file in this folder (the
        paper gets no review from it)."""
        found = [folder / p.format(id=paper_id) for p in self.patterns]
        # a named pipe counts too: its reader refuses it by name
        found = [p for p in dict.fromkeys(found) if p.exists() and not p.is_dir()]
        if not found:
            return None, []
        first, notes = found[0], list[tuple[Path, str]]()
        for other in found[1:]:
            how = "a link to it" if _same_file(first, other) else "a second file of this paper"
            notes.append((other, f"not read: {how} beside {first.name} (counted once)"))
        twin = _twin_of(first, folder, self.suffixes, paper_id)
        if twin is not None:
            notes.append((first, f"not read: a link to {twin.name}, the review file of paper "
                                 f"{id_from_filename(twin.name, self.suffixes)!r} (counted once)"))
            return None, notes
        return first, notes

    def read(self, path: Path, paper_id: str, venue: str) -> Loaded:
        """``load`` on one file, as :class:`Loaded`."""
        assert self.load is not None, f"system {self.id!r} has no per-paper loader"
        out = self.load(path, paper_id, venue)
        return out if isinstance(out, Loaded) else Loaded(list(out), [])

    def check_file(self, data: Any) -> Problems:
        """``check`` (no check: no problem)."""
        return self.check(data) if self.check is not None else []


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _twin_of(path: Path, folder: Path, suffixes: Sequence[str], paper_id: str) -> Path | None:
    """The other paper's file in ``folder`` that ``path`` is a symbolic link to, else None."""
    if not path.is_symlink():
        return None
    try:
        target = path.resolve(strict=True)
        home = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return None  # a dangling or looping link: its reader names it
    if target.parent != home:
        return None
    other = id_from_filename(target.name, suffixes)
    return target if other is not None and other != paper_id else None


#: file endings that are not part of a paper id, whichever system's folder a file is in
_GENERIC_SUFFIXES = ("_review.json", "_result.json", "-review.json", ".grobid.txt", ".txt", ".json")


def id_from_filename(name: str, suffixes: Sequence[str] = ()) -> str | None:
    """The paper id a review or paper file name stands for (None for unrelated files):
    the name without the longest matching ending among ``suffixes`` and the generic ones."""
    ends = sorted(dict.fromkeys([*suffixes, *_GENERIC_SUFFIXES]), key=len, reverse=True)
    for suffix in ends:
        if suffix and name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None

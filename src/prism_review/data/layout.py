"""The PRISM evaluation layout: ``DATA_ROOT/<VENUE>/{papers, human_reviews, <system folders>}``.

``EvalLayout(root)`` lists venues, paper ids (manifest first), reviewer systems (the registered
systems' folders plus bring-your-own JSONL folders) and loads :class:`Paper` and :class:`Review`
records through each system's spec (:mod:`prism_review.systems.registry`). ``validate_layout``
checks every rule of prism-reference §1.2 and reports all problems at once. ``demo_root()`` is
the bundled demo dataset.

Beyond §1.2, a venue folder may hold ``paper_metadata.jsonl`` (rows ``{paper_id, title?,
abstract?, decision?, keywords?}``) for papers without a human review file (docs/byo-format.md).

The layout's parts that need no reader live beside it, and are re-exported here: finding the
DATA_ROOT and its venue folders (:mod:`~prism_review.data.data_root`), manifests
(:mod:`~prism_review.data.manifests`), paper metadata (:mod:`~prism_review.data.paper_metadata`).
``validate_layout`` and ``LayoutProblem`` are in :mod:`~prism_review.data.layout_check`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from statistics import mean
from typing import Any

from prism_review.data.data_root import demo_root, find_data_root, unknown_folders, venue_dirs
from prism_review.data.manifests import list_paper_ids, read_manifest
from prism_review.data.paper_metadata import (
    METADATA_FILE,
    cached_paper_metadata,
    guess_title_abstract,
)
from prism_review.data.reviews import cap_review
from prism_review.guards import limits
from prism_review.guards.errors import DataError
from prism_review.guards.limits import cap_text
from prism_review.guards.safepath import UnsafePathError, check_id, inside
from prism_review.names import reserved_name_problem
from prism_review.records import Decision, Paper, Review
from prism_review.systems import registry
from prism_review.systems.base import read_json, read_text
from prism_review.systems.byo import byo_spec, is_byo_folder
from prism_review.systems.human import human_meta, unused_fields
from prism_review.systems.registry import HUMAN, get_system, register_system
from prism_review.systems.spec import ReviewStore, SystemSpec
from prism_review.venues import get_venue, leading_number

__all__ = [
    "METADATA_FILE",
    "EvalLayout",
    "builtin_folders",
    "demo_root",
    "find_data_root",
    "guess_title_abstract",
    "list_paper_ids",
    "read_manifest",
    "unknown_folders",
    "venue_dirs",
]

def builtin_folders() -> dict[str, str]:
    """Folder name → system id for the registered systems stored one file per paper (the six
    built-in systems and any plug-in: ``tree`` → ``treereview``)."""
    return {folder: spec.id for folder, spec in registry.file_systems().items()}


class EvalLayout:
    """Read access to one DATA_ROOT in the PRISM evaluation layout."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._stores: dict[tuple[str, str], ReviewStore] = {}
        #: ``(path, note)`` for every entry skipped by design (a review entry holding no text)
        #: and every text cut to the length limits: counted, not errors
        self.skipped: list[tuple[str, str]] = []
        #: inputs skipped or cut, each naming its file (and row or field): unreadable BYO rows,
        #: paths leading out of the data root, unsafe manifest ids, bad metadata rows, texts cut
        #: to the length limits. Callers report them (``errors.jsonl``, the CLI summary).
        self.problems: list[DataError] = []
        self._reported: set[str] = set()
        self._noted: set[tuple[str, str]] = set()

    def _problem(self, err: DataError) -> None:
        """Record ``err`` once (the same folder is looked at for every paper)."""
        if str(err) not in self._reported:
            self._reported.add(str(err))
            self.problems.append(err)

    def _note(self, path: str, note: str) -> None:
        """Record a counted skip once: a paper's human file is read for its metadata, its text
        and its reviews, and each read finds the same notes."""
        if (path, note) not in self._noted:
            self._noted.add((path, note))
            self.skipped.append((path, note))

    def _inside(self, path: Path) -> Path:
        """``path`` when it resolves inside the data root (symlinks followed), else
        :class:`UnsafePathError`."""
        inside(self.root, path)
        return path

    def venues(self) -> list[str]:
        """Canonical ids of the venues present, in registry order."""
        return list(venue_dirs(self.root))

    def venue_dir(self, venue: str) -> Path:
        """The folder of ``venue`` (any spelling); :class:`DataError` when it is absent."""
        vid = get_venue(venue).id
        dirs = venue_dirs(self.root)
        if vid not in dirs:
            raise DataError(self.root / vid, "venue folder not found")
        return dirs[vid]

    def manifest_path(self, venue: str, size: int | str = 200) -> Path:
        """Path of the ``paper_ids_<size>_<venue_lower>.txt`` manifest (may not exist)."""
        return self.venue_dir(venue) / f"paper_ids_{size}_{get_venue(venue).lower}.txt"

    def paper_ids(self, venue: str, manifest: str | None = None) -> list[str]:
        """Paper ids: the named manifest (``"200"``, ``"50"``, a file name or path), else the
        200-paper manifest when present, else the ``papers/`` listing (sorted)."""
        vdir = self.venue_dir(venue)
        if manifest is not None:
            path = self._manifest(venue, manifest)
            if path is None and str(manifest) == "50":
                return self.paper_ids(venue)[:50]
            if path is None:
                raise DataError(vdir / str(manifest), "manifest not found")
            return self._read_manifest(path)
        default = self.manifest_path(venue, 200)
        if default.is_file():
            try:
                return self._read_manifest(self._inside(default))
            except DataError as exc:  # unreadable or outside the root: the papers/ listing
                self._problem(DataError(exc.path, exc.message + "; using the papers/ listing"))
        return list_paper_ids(vdir / "papers")

    def _read_manifest(self, path: Path) -> list[str]:
        unsafe: list[DataError] = []
        ids = read_manifest(path, unsafe)
        for err in unsafe:
            self._problem(err)
        if not ids and not unsafe:  # an empty manifest would evaluate no paper with exit 0
            raise DataError(path, "manifest lists no paper id")
        return ids

    def _manifest(self, venue: str, manifest: str) -> Path | None:
        vdir = self.venue_dir(venue)
        for cand in (self.manifest_path(venue, manifest), vdir / manifest, Path(manifest)):
            if cand.is_file():
                return cand
        return None

    def systems(self, venue: str) -> list[str]:
        """System ids with a folder in ``venue``: the registered per-paper-file systems in table
        order (human first), then bring-your-own JSONL folders (sorted; registered in the system
        registry on discovery)."""
        vdir = self.venue_dir(venue)
        out = [sid for folder, sid in builtin_folders().items() if self._usable_dir(vdir / folder)]
        for sid in byo_systems(vdir, self._problem):
            if sid not in out and self._usable_dir(vdir / get_system(sid).folder):
                out.append(sid)
        return out

    def opened_stores(self, venue: str) -> dict[str, ReviewStore]:
        """System id → the folder-level store (bring-your-own JSONL) read so far in ``venue``."""
        vid = get_venue(venue).id
        return {sid: store for (v, sid), store in self._stores.items() if v == vid}

    def _usable_dir(self, folder: Path) -> bool:
        """True for a folder inside the data root; one leading out is reported and skipped."""
        if not folder.is_dir():
            return False
        try:
            inside(self.root, folder)
        except UnsafePathError as exc:
            self._problem(exc)
            return False
        return True

    def system_dir(self, venue: str, system: str) -> Path:
        """The folder of ``system`` in ``venue`` (a BYO folder is discovered on first use);
        ``KeyError`` for a system that is neither registered nor a folder here."""
        vdir = self.venue_dir(venue)
        spec = _file_spec(system)
        if spec is not None:
            return vdir / spec.folder
        try:
            return vdir / get_system(system).folder
        except KeyError:
            if system in byo_systems(vdir):  # discovers and registers the folder
                return vdir / get_system(system).folder
            raise

    def _human_json(self, venue: str, paper_id: str) -> dict[str, Any] | None:
        spec = get_system(HUMAN)
        path = self.venue_dir(venue) / spec.folder / f"{paper_id}.json"
        if not path.is_file() or spec.locate(path.parent, paper_id)[0] is None:
            return None  # none, or a link to another paper's file (load_reviews says so)
        self._inside(path)
        data = _cached_json(str(path), path.stat().st_mtime_ns)
        if not isinstance(data, dict):
            raise DataError(path, f"expected a JSON object, got {type(data).__name__}")
        return data

    def _human_json_or_none(self, venue: str, paper_id: str) -> dict[str, Any] | None:
        """The human file for metadata; a malformed one gives None here (``load_reviews``
        reports it, naming the file), so the paper itself still loads."""
        try:
            data = self._human_json(venue, paper_id)
        except DataError:
            return None
        if data is not None:
            path = str(self.venue_dir(venue) / get_system(HUMAN).folder / f"{paper_id}.json")
            for note in unused_fields(data, get_venue(venue).id):
                self._note(path, note)
        return data

    def _metadata(self, venue: str) -> dict[str, dict[str, Any]]:
        path = self.venue_dir(venue) / METADATA_FILE
        if not path.is_file():
            return {}
        try:
            self._inside(path)
            rows, bad = cached_paper_metadata(str(path), path.stat().st_mtime_ns)
        except DataError as exc:  # unreadable: the papers still load, without this metadata
            self._problem(exc)
            return {}
        for err in bad:
            self._problem(err)
        return rows

    def load_paper(self, venue: str, paper_id: str) -> Paper:
        """The paper: full text from ``papers/{id}.txt`` (else ``.grobid.txt``), title and
        abstract best effort, decision, meta-review and keywords from the human review file
        (else ``paper_metadata.jsonl``)."""
        vid = get_venue(venue).id
        check_id(paper_id, source=self.venue_dir(venue), field="paper_id")
        pdir = self.venue_dir(venue) / "papers"
        path = next(
            (p for p in (pdir / f"{paper_id}.txt", pdir / f"{paper_id}.grobid.txt") if p.is_file()),
            None,
        )
        if path is None:
            raise DataError(pdir / f"{paper_id}.txt", "paper text not found")
        text = read_text(self._inside(path))
        if not text.strip():
            raise DataError(path, "paper text is empty")
        limit = limits.MAX_PAPER_CHARS
        text, cut = cap_text(text, limit)
        if cut:
            self.skipped.append((str(path), f"paper text cut to {limit:,} characters ({cut:,} removed)"))
        info: dict[str, Any] = dict(self._metadata(venue).get(paper_id, {}))
        human = self._human_json_or_none(venue, paper_id)
        if human is not None:
            info.update({k: v for k, v in human_meta(human, vid).items() if v})
        title, abstract = guess_title_abstract(text)
        kw = info.get("keywords") or []
        return Paper(
            paper_id=paper_id,
            venue=vid,
            title=str(info.get("title") or title),
            abstract=str(info.get("abstract") or abstract),
            full_text=text,
            decision=Decision.parse(info.get("decision")),
            meta_review=info.get("meta_review"),
            keywords=[str(k) for k in kw] if isinstance(kw, list) else [],
            source_path=str(path),
        )

    def load_reviews(self, venue: str, paper_id: str, system: str) -> list[Review]:
        """Reviews of ``paper_id`` by ``system`` ([] when the system has no file for it).

        ``system`` is an id, a folder or a label (``treereview``, ``tree``, ``TreeReview``).
        """
        return [self._cap(r) for r in self._load_reviews(venue, paper_id, system)]

    def _load_reviews(self, venue: str, paper_id: str, system: str) -> list[Review]:
        vid = get_venue(venue).id
        check_id(paper_id, source=self.venue_dir(venue), field="paper_id")
        spec = _file_spec(system)
        if spec is not None:
            folder = self.venue_dir(venue) / spec.folder
            if not self._usable_dir(folder):
                return []
            path, notes = spec.locate(folder, paper_id)
            for p, n in notes:
                self._note(str(p), n)
            if path is None:
                return []
            self._inside(path)
            loaded = spec.read(path, paper_id, vid)
            for n in loaded.skipped:
                self._note(str(path), n)
            if not loaded.reviews and not spec.may_be_empty:
                self._problem(DataError(path, "no review text"))
            return loaded.reviews
        key = (vid, system)
        if key not in self._stores:
            folder = self.system_dir(venue, system)
            store = get_system(system).store
            if store is None or not self._usable_dir(folder):
                return []
            source = store(folder, system, self.root)
            source.paper_ids()  # indexes the folder, so its bad rows are reported up front
            for err in source.problems:
                self._problem(err)
            self.skipped.extend(getattr(source, "skipped", []))
            self._stores[key] = source
        return self._stores[key].reviews(paper_id, vid)

    def _cap(self, review: Review) -> Review:
        capped, cut = cap_review(review)
        if cut is not None:
            self.skipped.append((cut.path, cut.message))
        return capped

    def paper_meta(self, venue: str, paper_id: str) -> dict[str, Any]:
        """``decision`` (raw), ``decision_kind``, ``accepted`` (bool|None), ``avg_rating`` (mean
        of the human raw ratings, None without any) and ``avg_rating_norm`` ([0, 1])."""
        v = get_venue(venue)
        info: dict[str, Any] = dict(self._metadata(venue).get(paper_id, {}))
        human = self._human_json_or_none(venue, paper_id)
        ratings: list[float] = []
        if human is not None:
            info.update({k: val for k, val in human_meta(human, v.id).items() if val})
            for r in human.get("reviews") or []:
                if isinstance(r, dict):
                    value = leading_number(r.get(v.rating_field))
                    if value is not None:
                        ratings.append(value)
        decision = Decision.parse(info.get("decision"))
        norms = [n for n in (v.rating_scale.normalise(x) for x in ratings) if n is not None]
        return {
            "paper_id": paper_id,
            "venue": v.id,
            "decision": decision.raw,
            "decision_kind": decision.kind.value,
            "accepted": decision.accepted,
            "avg_rating": mean(ratings) if ratings else None,
            "avg_rating_norm": mean(norms) if norms else None,
            "n_human_ratings": len(ratings),
        }


def _file_spec(system: str) -> SystemSpec | None:
    """The spec of a per-paper-file system named any way (``tree``, ``TreeReview``), else None."""
    try:
        spec = get_system(system)
    except KeyError:
        return None
    return spec if spec.per_paper_files else None


def byo_systems(vdir: Path, report: Any = None) -> list[str]:
    """Bring-your-own system ids in a venue folder (registered on discovery). A JSONL folder
    named like a built-in system is skipped and passed to ``report`` as a :class:`DataError`."""
    known = {f.lower() for f in builtin_folders()} | {"papers"}
    out = []
    for child in sorted(vdir.iterdir()) if vdir.is_dir() else []:
        if child.name.startswith(".") or not is_byo_folder(child):
            continue
        problem = reserved_name_problem(child.name)
        if problem is not None:
            if report is not None:
                report(DataError(child, f"not a usable reviewer system name: {problem} (skipped; "
                                 "rename the folder)"))
            continue
        if child.name.lower() in known:
            if child.name not in builtin_folders() and report is not None:
                report(DataError(child, "a bring-your-own JSONL folder may not reuse a built-in "
                                 "system name (skipped)"))
            continue
        try:
            spec = get_system(child.name)
        except KeyError:
            spec = register_system(byo_spec(child.name))
        if spec.per_paper_files:  # a JSONL folder named like a built-in system's id
            if report is not None:
                report(DataError(child, "a bring-your-own JSONL folder may not reuse a built-in "
                                 "system name (skipped)"))
            continue
        out.append(spec.id)
    return out


@lru_cache(maxsize=64)
def _cached_json(path: str, _mtime: int) -> Any:
    return read_json(Path(path))

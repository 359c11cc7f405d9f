"""Validation of a PRISM evaluation layout (prism-reference §1.2), reporting every problem.

Rules checked per venue:

1. the venue folder exists (for venues asked for explicitly) and holds ``papers/``;
2. with ``require_all_systems``, the review folders of the registered per-paper-file systems
   (the six built-in ones and any plug-in) are all present and each covers every paper id,
   except that a venue holding bring-your-own systems and none of the LLM systems' folders
   evaluates those systems instead (``human_reviews/`` is still required). Without it, missing
   folders are allowed but every paper needs a review from at least one system;
3. ``papers/`` is non-empty and holds no empty, undecodable or unexpected files;
4. manifests list known paper ids, and ``paper_ids_50`` is the first 50 ids of ``paper_ids_200``;
5. every review file (named by one of its system's patterns) passes its system's check
   (``SystemSpec.check``: a ``.txt`` review is non-empty UTF-8);
6. JSON reviews are valid JSON and satisfy their system's check (human, tree, deepreview,
   cyclereview). Rules 5 and 6 apply to every file of a review folder, including files of
   papers that are missing or broken;
7. bring-your-own JSONL folders: every row parses and holds text; a JSONL folder may not reuse a
   built-in system's id;
8. the optional ``paper_metadata.jsonl``: every row is an object with a string ``paper_id``;
9. the input-safety rules ``prism evaluate`` applies (so both agree on what is valid): no file or
   folder resolves outside DATA_ROOT (symlinks), manifest ids are plain file names, every review
   file loads through its system's own loader (types, "no answer" entries), reviews name a
   paper that has text, and no other folder sits beside the venue folders.

Problems are :class:`LayoutProblem` records; nothing here raises on bad input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prism_review.data import layout as L
from prism_review.data.paper_metadata import read_paper_metadata
from prism_review.guards.errors import DataError
from prism_review.guards.safepath import inside
from prism_review.names import reserved_name_problem
from prism_review.systems.base import read_json, read_text
from prism_review.venues import VENUES, get_venue


@dataclass(frozen=True)
class LayoutProblem:
    """One rule violation: the file or folder at fault, the field (if any) and what is wrong."""

    path: str
    field: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}" + (f" [{self.field}]" if self.field else "") + f": {self.message}"


def validate_layout(
    root: Path,
    *,
    venues: list[str] | None = None,
    require_all_systems: bool = True,
    skips: list[LayoutProblem] | None = None,
) -> list[LayoutProblem]:
    """Every §1.2 problem of the layout under ``root`` (an empty list means valid).

    ``venues`` restricts the check (and makes each listed venue mandatory); by default every
    venue folder present is checked. ``require_all_systems=False`` accepts partial system
    coverage (e.g. the bundled demo, which has bring-your-own systems only for some papers).
    Entries ``prism evaluate`` skips without it being an error (a human review holding only a
    rating) are appended to ``skips`` when given.
    """
    root = Path(root)
    problems: list[LayoutProblem] = []

    def add(path: Path | str, message: str, field: str | None = None) -> None:
        problems.append(LayoutProblem(str(path), field, message))

    if not root.is_dir():
        add(root, "data root is not a directory")
        return problems
    present = L.venue_dirs(root)
    for child in L.unknown_folders(root):
        add(child, "not a known venue folder (expected one of: " + ", ".join(VENUES) + "); skipped")
    if venues is None:
        wanted = list(present)
        if not wanted:
            add(root, f"no venue folder found (expected some of: {', '.join(VENUES)})")
    else:
        wanted = []
        for name in venues:
            try:
                vid = get_venue(name).id
            except KeyError as exc:
                add(root, str(exc.args[0]))
                continue
            if vid not in present:
                add(root / vid, "venue folder is missing")
            else:
                wanted.append(vid)
    for vid in wanted:
        _check_venue(L, vid, present[vid], require_all_systems, _guarded(root, add, skips))
    return problems


def _guarded(root: Path, add, skips: list[LayoutProblem] | None):  # type: ignore[no-untyped-def]
    """``add`` plus ``add.outside(path)`` (True, and a problem, when ``path`` leads out of the
    root) and ``add.skip(path, message)`` (a counted skip, not a problem)."""

    def skip(path: Path, message: str) -> None:
        if skips is not None:
            skips.append(LayoutProblem(str(path), None, message))

    def outside(path: Path) -> bool:
        try:
            inside(root, path)
        except DataError as exc:
            add(path, exc.message)
            return True
        return False

    add.outside = outside
    add.skip = skip
    add.root = root
    return add


def _check_venue(L, vid, vdir: Path, require_all: bool, add) -> None:  # type: ignore[no-untyped-def]
    from prism_review.systems import byo, registry

    pdir = vdir / "papers"
    ids = _check_papers(pdir, add)
    with_text = set(ids)
    ids = _check_manifests(L, vid, vdir, ids, add)
    _check_metadata(vdir / L.METADATA_FILE, add)
    covered: dict[str, int] = {pid: 0 for pid in ids}
    specs = registry.file_systems()
    llm_folders = [f for f, spec in specs.items() if spec.id != registry.HUMAN]
    byo_only = not any((vdir / f).is_dir() for f in llm_folders) and any(
        byo.is_byo_folder(c) for c in vdir.iterdir() if c.name not in L.builtin_folders()
    )
    for folder, spec in specs.items():
        sid = spec.id
        sdir = vdir / folder
        if not sdir.is_dir():
            # a venue of bring-your-own systems only evaluates those instead of PRISM's LLMs;
            # a plug-in system's folder is checked where it exists, never required
            if require_all and (sid == registry.HUMAN
                                or (not byo_only and registry.is_builtin(sid))):
                add(sdir, f"review folder for system {sid!r} is missing")
            continue
        if add.outside(sdir):
            continue
        # every review file is checked, also those of papers whose text is broken or missing
        ok: set[Path] = set()
        for path in sorted(sdir.iterdir()):
            # not only regular files: a named pipe or device is checked and refused by name
            wanted = not path.is_dir() and path.name.endswith(spec.suffixes)
            if (
                wanted
                and not path.name.startswith(".")
                and not add.outside(path)
                and _check_review_file(spec, path, add)
                and _check_loads(spec, vid, path, with_text, add)
            ):
                ok.add(path)
        for pid in ids:
            found, notes = spec.locate(sdir, pid)  # a twin or second file: counted once
            for twin, note in notes:
                add.skip(twin, note)
            if found is None:
                if require_all:
                    add(sdir, f"no review file for paper {pid!r}", field=pid)
            elif found in ok:
                covered[pid] += 1
    for child in sorted(vdir.iterdir()):
        if (
            child.name in L.builtin_folders()
            or child.name == "papers"
            or not byo.is_byo_folder(child)
        ):
            continue
        problem = reserved_name_problem(child.name)
        if problem is not None:
            add(child, f"not a usable reviewer system name: {problem} (rename the folder)")
            continue
        if child.name.lower() in {n.lower() for s in specs.values() for n in (s.id, s.folder)}:
            add(child, "a bring-your-own JSONL folder may not reuse a built-in system name")
            continue
        if add.outside(child):
            continue
        bad = byo.check_folder(child, add.root)
        for where, field, message in bad:
            add(where, message, field)
        source = byo.ByoSource(child, child.name, root=add.root)
        for pid, rows in source.index().items():
            if pid not in with_text:  # evaluate skips these rows: say so here too
                for path, line_no, _offset in rows:
                    add(path, f"review of paper {pid!r}, which has no readable text in papers/",
                        f"line {line_no}: paper_id")
        for copy, note in source.skipped:  # copies, links and repeated rows: counted once
            add.skip(Path(copy), note)
        if not bad:  # no file outside the root: the index read above holds every row
            for pid in source.paper_ids():
                if pid in covered:
                    covered[pid] += 1
    if not require_all:
        for pid, n in covered.items():
            if n == 0:
                add(vdir, f"paper {pid!r} has no readable review from any system", field=pid)


def _check_papers(pdir: Path, add) -> list[str]:  # type: ignore[no-untyped-def]
    if not pdir.is_dir():
        add(pdir, "papers folder is missing")
        return []
    ids: list[str] = []
    files = sorted(p for p in pdir.iterdir() if not p.name.startswith("."))
    if not files:
        add(pdir, "papers folder is empty")
    for p in files:
        if add.outside(p):
            continue
        if not p.is_file() or not p.name.endswith(".txt"):
            add(p, "unexpected entry in papers/ (expected {id}.txt or {id}.grobid.txt)")
            continue
        try:
            text = read_text(p)
        except DataError as exc:
            add(p, exc.message)
            continue
        if not text.strip():
            add(p, "paper text is empty")
            continue
        pid = p.name[: -len(".grobid.txt")] if p.name.endswith(".grobid.txt") else p.name[:-4]
        if pid not in ids:
            ids.append(pid)
    return sorted(ids)


def _check_manifests(L, vid: str, vdir: Path, ids: list[str], add) -> list[str]:  # type: ignore[no-untyped-def]
    lower = get_venue(vid).lower
    lists: dict[str, list[str]] = {}
    for size in ("200", "50"):
        path = vdir / f"paper_ids_{size}_{lower}.txt"
        if not path.is_file() or add.outside(path):
            continue
        unsafe: list[DataError] = []
        try:
            listed = L.read_manifest(path, unsafe)
        except DataError as exc:
            add(path, exc.message)
            continue
        for err in unsafe:
            add(path, err.message, err.field)
        lists[size] = listed
        if not listed:
            add(path, "manifest lists no paper id")
        for pid in listed:
            if pid not in ids:
                add(path, f"paper {pid!r} is listed but papers/ has no text for it", field=pid)
        dup = {p for p in listed if listed.count(p) > 1}
        if dup:
            add(path, f"duplicate ids: {', '.join(sorted(dup))}")
    if "200" in lists and "50" in lists and lists["50"] != lists["200"][: len(lists["50"])]:
        add(vdir / f"paper_ids_50_{lower}.txt", "is not the first ids of the 200-paper manifest")
    if "200" in lists:
        return [p for p in lists["200"] if p in ids]
    return ids


def _check_metadata(path: Path, add) -> None:  # type: ignore[no-untyped-def]
    """Rows of the optional ``paper_metadata.jsonl``: JSON objects with a string ``paper_id``."""
    if not path.is_file() or add.outside(path):
        return
    try:
        _rows, bad = read_paper_metadata(path)
    except DataError as exc:
        add(path, exc.message)
        return
    for err in bad:
        add(path, err.message, err.field)


def _check_loads(spec, vid: str, path: Path, with_text: set[str], add) -> bool:  # type: ignore[no-untyped-def]
    """Load the file the way ``prism evaluate`` does; its errors and skips are problems here."""
    from prism_review.systems.spec import id_from_filename

    pid = id_from_filename(path.name, spec.suffixes) or path.stem
    if pid not in with_text:
        add(path, f"review of paper {pid!r}, which has no readable text in papers/", field=pid)
        return False
    try:
        loaded = spec.read(path, pid, vid)
        for note in loaded.skipped:
            add.skip(path, note)
    except DataError as exc:
        add(path, exc.message, exc.field)
        return False
    if not loaded.reviews:
        add(path, "no review text")
        return False
    return True


def _check_review_file(spec, path: Path, add) -> bool:  # type: ignore[no-untyped-def]
    """Check one review file with its system's ``check``; True when it passed."""
    if not spec.check_json:
        bad = spec.check_file(path)
    else:
        try:
            data = read_json(path)
        except DataError as exc:
            add(path, exc.message, exc.field)
            return False
        bad = spec.check_file(data)
    for field, message in bad:
        add(path, message, field)
    return not bad

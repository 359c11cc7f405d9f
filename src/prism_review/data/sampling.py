"""Seeded, stratified paper samples per venue × decision class, reproducible on any machine.

The PRISM evaluation subset claims 200 papers per venue stratified by decision, but the original
code never shows how (prism-reference §1.4). This module makes the step explicit:

1. read ``(paper_id, venue, decision)`` from the corpus table or the per-venue json folders;
2. per venue, split the papers into decision classes (``oral``, ``spotlight``, ``poster``,
   ``conditional``, ``reject``; ``pending`` and ``unknown`` are left out unless asked for, since
   a pending decision is missing, not a class);
3. allocate the venue's sample size over the classes, proportionally to class size (largest
   remainder) or equally (water-filling: a class too small gives its share to the others);
4. inside a class, order papers by ``sha256(seed, venue, paper_id)`` and take the first ones.

The ranking uses only sha256 of strings, so the same seed gives the same manifest on any
machine and Python version (no ``hash()``, no platform RNG). Each venue's id list is written in
rank order, so its first 50 ids are themselves a random subset (the "robustness" subset).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from prism_review import progress
from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError
from prism_review.records import Decision, DecisionKind
from prism_review.venues import get_venue

DEFAULT_CLASSES = ("oral", "spotlight", "poster", "conditional", "reject")
ALL_CLASSES = (*DEFAULT_CLASSES, "pending", "unknown")
DEFAULT_SIZE = 200
MANIFEST_NAME = "sample_manifest.json"

_CLASS_OF = {
    DecisionKind.ACCEPT_ORAL: "oral",
    DecisionKind.ACCEPT_SPOTLIGHT: "spotlight",
    DecisionKind.ACCEPT_POSTER: "poster",
    DecisionKind.CONDITIONAL: "conditional",
    DecisionKind.REJECT: "reject",
    DecisionKind.PENDING: "pending",
    DecisionKind.UNKNOWN: "unknown",
}


def decision_class(decision: Decision) -> str:
    """The sampling class of a decision (``oral``, ``poster``, ``reject``, ``pending``…)."""
    return _CLASS_OF[decision.kind]


@dataclass(frozen=True)
class PaperMeta:
    """The three facts sampling needs about a paper."""

    paper_id: str
    venue: str  # canonical id, e.g. ICLR2024
    decision_class: str


def rank_key(seed: int | str, venue: str, paper_id: str) -> str:
    """The machine-independent ordering key of a paper for a given seed."""
    return hashlib.sha256(f"{seed}\x1f{venue}\x1f{paper_id}".encode()).hexdigest()


def allocate(population: dict[str, int], size: int, mode: str = "proportional") -> dict[str, int]:
    """Split ``size`` over classes; never more than a class holds. Ties go to earlier classes.

    ``proportional``: Hamilton's largest-remainder method on class sizes. ``equal``: the same
    share for every class, a small class's unused share going to the rest.
    """
    classes = [c for c in population if population[c] > 0]
    total = sum(population[c] for c in classes)
    if size >= total:
        return {c: population[c] for c in population}
    out = dict.fromkeys(population, 0)
    if mode == "proportional":
        quotas = {c: size * population[c] / total for c in classes}
        for c in classes:
            out[c] = int(quotas[c])
        left = size - sum(out.values())
        by_rem = sorted(classes, key=lambda c: (-(quotas[c] - int(quotas[c])), classes.index(c)))
        for c in by_rem[:left]:
            out[c] += 1
        return out
    if mode != "equal":
        raise ValueError(f"unknown allocation {mode!r}; use 'proportional' or 'equal'")
    active = sorted(classes, key=lambda c: (population[c], classes.index(c)))
    left = size
    while active:
        share = left // len(active)
        small = [c for c in active if population[c] <= share]
        if not small:
            extra = left - share * len(active)
            for c in classes:  # class order decides who gets the remainder
                if c in active:
                    out[c] = share + (1 if extra > 0 else 0)
                    extra -= 1
            break
        for c in small:
            out[c] = population[c]
            left -= population[c]
            active.remove(c)
    return out


class VenueSample(BaseModel):
    """One venue's part of the manifest."""

    requested: int
    population: dict[str, int]
    allocated: dict[str, int]
    paper_ids: list[str]
    shortfall: int = 0


class SampleManifest(BaseModel):
    """Everything needed to reproduce (and audit) a sample."""

    seed: int
    allocation: str
    classes: list[str]
    source: str
    method: str = (
        "per venue × decision class; within a class, ascending sha256(seed, venue, paper_id)"
    )
    venues: dict[str, VenueSample] = Field(default_factory=dict)


def draw_sample(
    papers: Iterable[PaperMeta],
    *,
    seed: int = 0,
    sizes: dict[str, int] | None = None,
    default_size: int = DEFAULT_SIZE,
    classes: Iterable[str] = DEFAULT_CLASSES,
    allocation: str = "proportional",
    venues: Iterable[str] | None = None,
    source: str = "",
) -> SampleManifest:
    """Draw the sample. ``sizes`` maps venue → size (others get ``default_size``)."""
    if allocation not in ("proportional", "equal"):  # checked before any class is small enough
        raise ValueError(f"unknown allocation {allocation!r}; use 'proportional' or 'equal'")
    keep = list(classes)
    bad = [c for c in keep if c not in ALL_CLASSES]
    if bad:
        raise ValueError(f"unknown decision class {bad[0]!r}; use {', '.join(ALL_CLASSES)}")
    wanted = {get_venue(v).id for v in venues} if venues else None
    size_of = {get_venue(v).id: n for v, n in (sizes or {}).items()}
    groups: dict[str, dict[str, set[str]]] = defaultdict(lambda: {c: set() for c in keep})
    for p in papers:
        if (wanted is None or p.venue in wanted) and p.decision_class in keep:
            groups[p.venue][p.decision_class].add(p.paper_id)
    manifest = SampleManifest(seed=seed, allocation=allocation, classes=keep, source=source)
    for venue in sorted(groups):
        by_class = groups[venue]
        n = size_of.get(venue, default_size)
        population = {c: len(by_class[c]) for c in keep}
        alloc = allocate(population, n, allocation)
        keys = {pid: rank_key(seed, venue, pid) for ids in by_class.values() for pid in ids}
        chosen: list[str] = []
        for c in keep:
            chosen.extend(sorted(by_class[c], key=keys.__getitem__)[: alloc[c]])
        chosen.sort(key=keys.__getitem__)
        manifest.venues[venue] = VenueSample(
            requested=n,
            population=population,
            allocated=alloc,
            paper_ids=chosen,
            shortfall=max(0, n - len(chosen)),
        )
    return manifest


def write_manifest(manifest: SampleManifest, out_dir: Path) -> list[Path]:
    """Write ``sample_manifest.json`` and one ``paper_ids_<n>_<venue_lower>.txt`` per venue."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / MANIFEST_NAME]
    text = json.dumps(
        manifest.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False
    )
    written[0].write_text(text + "\n", encoding="utf-8")
    for venue, vs in manifest.venues.items():
        path = out_dir / f"paper_ids_{len(vs.paper_ids)}_{venue.lower()}.txt"
        path.write_text("".join(pid + "\n" for pid in vs.paper_ids), encoding="utf-8")
        written.append(path)
    return written


# -- sources ---------------------------------------------------------------------------------
def metadata_from_corpus(path: Path, skips: SkipLog) -> Iterator[PaperMeta]:
    """``(id, venue, decision)`` of every row of ``papers.parquet`` (three columns read)."""
    from prism_review.data.corpus import CorpusReader

    reader = CorpusReader(path, columns=["paper_id", "venue", "decision"], batch_size=4096)
    reader.skips = skips
    for rec in progress.iterate(reader, "corpus rows", total=reader.num_rows):
        yield PaperMeta(rec.paper.paper_id, rec.paper.venue, decision_class(rec.paper.decision))


def metadata_from_folder(path: Path, skips: SkipLog) -> Iterator[PaperMeta]:
    """``(id, venue, decision)`` from a per-venue folder's or zip's ``json/<id>.json`` files."""
    from prism_review.data.venue_folder import VenueFolder

    with VenueFolder(path, skips=skips) as vf:
        if vf.venue is None:
            raise DataError(path, f"cannot tell the venue from the name {vf.venue_name!r}")
        for pid in vf.paper_ids():
            try:
                rec = vf.record(pid)
            except DataError as err:
                skips.add_error(err, record=pid)
                continue
            yield PaperMeta(pid, vf.venue.id, decision_class(vf.decision(pid, rec)))  # as evaluate


def metadata_from_layout(root: Path, skips: SkipLog) -> Iterator[PaperMeta]:
    """``(id, venue, decision)`` of every paper of an evaluation layout (its paper ids, in the
    order ``evaluate`` reads them, and the decision of ``paper_metadata.jsonl`` / the reviews)."""
    from prism_review.data.layout import EvalLayout

    layout = EvalLayout(root)
    for venue in layout.venues():
        for pid in layout.paper_ids(venue):
            try:
                meta = layout.paper_meta(venue, pid)
            except DataError as err:
                skips.add_error(err, record=pid)
                continue
            yield PaperMeta(pid, venue, decision_class(Decision.parse(meta.get("decision"))))
    for problem in layout.problems:  # bad metadata rows, unsafe manifest ids: why a class is unknown
        skips.add_error(problem)
    for where, note in layout.skipped:  # a decision that is not text
        skips.add(where, note)


def metadata_from(path: Path, skips: SkipLog) -> Iterator[PaperMeta]:
    """Any source ``prism evaluate`` reads (detected by shape, as there): a corpus table, one
    venue folder/zip or a folder of them, an evaluation layout, or ProReviewer."""
    from prism_review.data.source_kinds import VenueFolderSource, detect

    source = detect(Path(path))
    if source.kind == "corpus":
        yield from metadata_from_corpus(source.path, skips)
    elif isinstance(source, VenueFolderSource):
        for _venue, folder in source.folders:
            yield from metadata_from_folder(folder, skips)
    elif source.kind == "layout":
        yield from metadata_from_layout(source.path, skips)
    else:  # ProReviewer and any later kind: the decision its items carry
        for item in source.items():
            if item.paper is not None:
                yield PaperMeta(item.paper_id, item.venue, decision_class(item.paper.decision))
        skips.skips.extend(source.skips.skips)

"""The OpenAIReview perturbation benchmark: typed rows, hash checks, licence flags.

Reads the hub dataset's parquet or JSONL rows (datasets.md §3) and the dev file's rows
(shared data README §4, which has no clean text, hashes or ``review_input``). Texts are kept
exactly as stored — including the one edit whose ``\\right`` became a carriage return + ``ight``:
that is what the review systems saw.

For every row the reader

- checks ``clean_sha256`` / ``perturbed_sha256`` / ``review_input_sha256`` when the text is there;
- flags rows whose texts are empty because the paper's licence forbids sharing
  (:attr:`PerturbationRow.text_withheld`), so they are reported instead of silently scored as
  papers without errors;
- rebuilds a missing ``review_input`` as the first 13,000 ``cl100k_base`` tokens of
  ``perturbed_paper`` (offline, see :mod:`prism_review.data.tokens`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from prism_review.data.jsonl import iter_jsonl
from prism_review.data.skips import SkipLog
from prism_review.data.tokens import REVIEW_INPUT_TOKENS, first_tokens
from prism_review.guards.errors import DataError

_HASHED = (("clean_paper", "clean_sha256"), ("perturbed_paper", "perturbed_sha256"),
           ("review_input", "review_input_sha256"))  # fmt: skip


class Perturbation(BaseModel):
    """One injected error."""

    perturbation_id: str
    span_id: str | None = None
    error_subtype: str = ""
    original: str
    perturbed: str
    offset: int | None = None
    n_occurrences: int | None = None
    why_wrong: str = ""
    verifier_quote: str | None = None
    verifier_reason: str | None = None
    #: inside ``review_input`` (counts towards recall); None until known. The reader keeps the
    #: data's value and computes it when the data has none (see :func:`in_review_input`).
    scored: bool | None = None
    #: what the reader computed from the text (None: not computable, e.g. text withheld)
    in_window: bool | None = None


class PerturbationRow(BaseModel):
    """One (paper × error type) row, in either the hub or the dev-file shape."""

    id: str
    arxiv_id: str
    title: str = ""
    domain: str | None = None
    arxiv_category: str | None = None
    primary_category: str | None = None
    paper_type: str | None = None
    paper_slug: str | None = None
    error_type: str
    error_category: str
    in_frontier_subset: bool | None = None
    license: str | None = None
    text_included: bool | None = None
    clean_paper: str | None = None
    perturbed_paper: str | None = None
    review_input: str | None = None
    clean_sha256: str | None = None
    perturbed_sha256: str | None = None
    review_input_sha256: str | None = None
    n_perturbations: int | None = None
    n_scored: int | None = None
    n_generated: int | None = None
    n_kept: int | None = None
    n_dropped_by_verifier: int | None = None
    verifier_model: str | None = None
    perturbations: list[Perturbation] = Field(default_factory=list)
    #: filled by the reader
    review_input_rebuilt: bool = False
    hash_mismatches: list[str] = Field(default_factory=list)
    offset_mismatches: list[str] = Field(default_factory=list)

    @property
    def text_withheld(self) -> bool:
        """True when the paper text is absent (non-shareable licence): rebuild it from arXiv."""
        return self.text_included is False or not (self.perturbed_paper or "").strip()

    @property
    def scored_perturbations(self) -> list[Perturbation]:
        """The perturbations that count towards recall (inside ``review_input``)."""
        return [p for p in self.perturbations if p.scored]

    @property
    def n_unknown_window(self) -> int:
        """Perturbations whose place relative to ``review_input`` is unknown (left unscored)."""
        return sum(1 for p in self.perturbations if p.scored is None)


def sha256_text(text: str) -> str:
    """Hex sha256 of the UTF-8 bytes of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PerturbationReader:
    """Stream and check rows from a ``.jsonl`` or ``.parquet`` file.

    ``counts`` tallies rows, withheld texts, hash and offset mismatches and rebuilt inputs;
    unreadable rows go to ``skips`` (or raise :class:`DataError` with ``strict=True``, which also
    makes a hash mismatch fatal).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        strict: bool = False,
        verify_hashes: bool = True,
        rebuild_review_input: bool = True,
        max_tokens: int = REVIEW_INPUT_TOKENS,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise DataError(self.path, "no such file")
        self.skips = SkipLog(strict=strict)
        self.verify_hashes = verify_hashes
        self.rebuild_review_input = rebuild_review_input
        self.max_tokens = max_tokens
        self.counts: Counter[str] = Counter()

    def _raw_rows(self) -> Iterator[tuple[str, dict[str, Any]]]:
        if self.path.suffix == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                pf = pq.ParquetFile(self.path)
            except (OSError, pa.ArrowInvalid) as exc:
                raise DataError(self.path, f"not a readable parquet file: {exc}") from exc
            n = 0
            for batch in pf.iter_batches(batch_size=8):
                for row in batch.to_pylist():
                    n += 1
                    yield f"row {n}", row
        else:
            for lineno, obj in iter_jsonl(self.path, self.skips):
                yield f"line {lineno}", obj

    def __iter__(self) -> Iterator[PerturbationRow]:
        first: dict[str, str] = {}  # row id → where it was first seen
        for where, raw in self._raw_rows():
            try:
                row = PerturbationRow.model_validate(raw)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"])
                self.skips.add(
                    self.path, err["msg"], field=field, record=str(raw.get("id") or where)
                )
                continue
            if row.id in first:  # a repeated row would be scored twice
                self.counts["duplicates"] += 1
                self.skips.add(self.path, f"duplicate row id (first at {first[row.id]}); skipped",
                               field="id", record=f"{row.id} at {where}")
                continue
            first[row.id] = where
            self.counts["rows"] += 1
            self._check(row)
            yield row

    def _check(self, row: PerturbationRow) -> None:
        if row.text_withheld:
            self.counts["text_withheld"] += 1
        elif self.rebuild_review_input and not row.review_input:
            row.review_input = first_tokens(row.perturbed_paper or "", self.max_tokens)
            row.review_input_rebuilt = True
            self.counts["review_input_rebuilt"] += 1
        if self.verify_hashes:
            for text_field, hash_field in _HASHED:
                text, want = getattr(row, text_field), getattr(row, hash_field)
                if text and want and sha256_text(text) != want.lower():
                    row.hash_mismatches.append(text_field)
            if row.hash_mismatches:
                self.counts["hash_mismatch"] += 1
                if self.skips.strict:
                    raise DataError(
                        f"{self.path} [{row.id}]", "sha256 does not match the text",
                        field=row.hash_mismatches[0],
                    )  # fmt: skip
        if not row.text_withheld:
            for p in row.perturbations:
                if p.offset is not None and not _offset_ok(row, p):
                    row.offset_mismatches.append(p.perturbation_id)
            if row.offset_mismatches:
                self.counts["offset_mismatch"] += 1
        self._mark_window(row)

    def _mark_window(self, row: PerturbationRow) -> None:
        """Compute each edit's place in ``review_input`` and fill ``scored`` where the data has
        none; an edit whose given ``scored`` disagrees with the text is counted."""
        window = review_window(row)
        for p in row.perturbations:
            p.in_window = in_review_input(row, p, window) if window is not None else None
            if p.scored is None:
                p.scored = p.in_window
                self.counts["scored_computed" if p.scored is not None else "scored_unknown"] += 1
            elif p.in_window is not None and p.in_window != p.scored:
                self.counts["scored_disagrees_with_window"] += 1


def review_window(row: PerturbationRow) -> int | None:
    """How many leading characters of ``perturbed_paper`` a review system is shown: the length
    of ``review_input``'s common prefix with the paper (the token cut may end inside a
    character, which then decodes differently), or None when either text is missing."""
    paper, shown = row.perturbed_paper or "", row.review_input or ""
    if not paper or not shown:
        return None
    if paper.startswith(shown):
        return len(shown)
    n = min(len(paper), len(shown))
    i = next((k for k in range(n) if paper[k] != shown[k]), n)
    return i


def edit_position(row: PerturbationRow, p: Perturbation) -> int | None:
    """Character offset of ``p.perturbed`` in ``perturbed_paper``: the given offset when it
    points at the edit there (the dev file's convention), else its first occurrence, else None."""
    paper = row.perturbed_paper or ""
    if not p.perturbed or not paper:
        return None
    if p.offset is not None and paper.startswith(p.perturbed, p.offset):
        return p.offset
    at = paper.find(p.perturbed)
    return at if at >= 0 else None


def in_review_input(row: PerturbationRow, p: Perturbation, window: int) -> bool | None:
    """True when the whole edit lies inside the first ``window`` characters (what the review
    system saw); None when the edit cannot be found in the paper."""
    at = edit_position(row, p)
    return None if at is None else at + len(p.perturbed) <= window


def _offset_ok(row: PerturbationRow, p: Perturbation) -> bool:
    """The hub gives the offset of ``original`` in the clean text; the dev file, of ``perturbed``
    in the perturbed text. Either reading that holds is accepted."""
    off = p.offset or 0
    if row.clean_paper and row.clean_paper.startswith(p.original, off):
        return True
    return bool(row.perturbed_paper and row.perturbed_paper.startswith(p.perturbed, off))


def load_perturbations(path: str | Path, **kwargs: Any) -> list[PerturbationRow]:
    """All rows of a (small) perturbation file; see :class:`PerturbationReader` for options."""
    return list(PerturbationReader(path, **kwargs))

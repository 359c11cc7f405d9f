"""Counted skips: loaders that keep going past a bad record say what they skipped and why.

A loader either raises :class:`~prism_review.guards.errors.DataError` (``strict=True``) or records
the problem here and moves on, so nothing is lost silently: the caller can print the log, count
the skips per field, or fail when any were recorded.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from prism_review.guards.errors import DataError


@dataclass(frozen=True)
class Skip:
    """One skipped (or partly read) record: where it was and what was wrong."""

    path: str
    message: str
    field: str | None = None
    record: str | None = None  # a paper id or row number, when known

    def __str__(self) -> str:
        where = self.path + (f" [{self.record}]" if self.record else "")
        where += f" (field {self.field!r})" if self.field else ""
        return f"{where}: {self.message}"


@dataclass
class SkipLog:
    """Collects skips; with ``strict=True`` the first problem raises instead."""

    strict: bool = False
    skips: list[Skip] = field(default_factory=list)

    def add(
        self,
        path: object,
        message: str,
        *,
        field: str | None = None,
        record: str | None = None,
    ) -> None:
        """Record a problem, or raise it as a :class:`DataError` in strict mode."""
        if self.strict:
            where = f"{path}" + (f" [{record}]" if record else "")
            raise DataError(where, message, field=field)
        self.skips.append(Skip(str(path), message, field, record))

    def add_error(self, err: DataError, *, record: str | None = None) -> None:
        """Record an already-built :class:`DataError` (re-raised in strict mode)."""
        msg = err.message
        if self.strict:
            if record is None:
                raise err
            raise DataError(f"{err.path} [{record}]", msg, field=err.field) from err
        self.skips.append(Skip(err.path, msg, err.field, record))

    def __len__(self) -> int:
        return len(self.skips)

    def by_field(self) -> Counter[str]:
        """How many skips each field caused (``"-"`` for whole-record problems)."""
        return Counter(s.field or "-" for s in self.skips)

    def summary(self) -> str:
        """One line: the total and the per-field counts."""
        if not self.skips:
            return "no problems"
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_field().items()))
        return f"{len(self.skips)} problem(s) ({parts})"

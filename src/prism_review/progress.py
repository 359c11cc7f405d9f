"""Progress of long work, reported without the library knowing about terminals.

Library loops wrap their work in :func:`task` (or :func:`gather` / :func:`iterate`); nothing is
shown unless a command installed a reporter with :func:`showing`, which draws a rich progress
bar with elapsed time and ETA on stderr (only on a terminal, so logs and pipes stay clean).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

Advance = Callable[[int], None]


class _Reporter:
    """A rich ``Progress`` shared by every task of one command."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress

    @contextlib.contextmanager
    def task(self, description: str, total: int | None) -> Iterator[Advance]:
        tid = self.progress.add_task(description, total=total)

        def advance(n: int = 1) -> None:
            self.progress.advance(tid, n)

        try:
            yield advance
        finally:
            self.progress.stop_task(tid)


def _nothing(n: int = 1) -> None:
    """The advance of a task nobody watches."""


_reporter: ContextVar[_Reporter | None] = ContextVar("prism_progress", default=None)


@contextlib.contextmanager
def task(description: str, total: int | None = None) -> Iterator[Advance]:
    """A unit of long work: ``with task("scoring", n) as advance: ... advance(1)``."""
    rep = _reporter.get()
    if rep is None:
        yield _nothing
        return
    with rep.task(description, total) as advance:
        yield advance


async def gather(awaitables: Iterable[Awaitable[T]], description: str) -> list[T]:
    """``asyncio.gather`` of ``awaitables`` (results in order), advancing a bar as each ends."""
    items = list(awaitables)
    with task(description, len(items)) as advance:

        async def one(aw: Awaitable[T]) -> T:
            try:
                return await aw
            finally:
                advance(1)

        return list(await asyncio.gather(*(one(a) for a in items)))


def iterate(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Yield ``items``, advancing a bar per item (``total`` defaults to ``len(items)``)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with task(description, total) as advance:
        for item in items:
            yield item
            advance(1)


@contextlib.contextmanager
def showing(console: Any = None, *, enabled: bool = True) -> Iterator[None]:
    """Show the progress of the work done inside (a bar, counts, elapsed and ETA per task) on
    ``console`` (default: stderr), when it is a terminal and ``enabled``."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = console or Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        token = _reporter.set(_Reporter(bar))
        try:
            yield
        finally:
            _reporter.reset(token)


__all__ = ["gather", "iterate", "showing", "task"]

"""Progress reporting: silent without a reporter; a bar with counts and ETA on a terminal."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from prism_review import progress


async def _double(x: int) -> int:
    await asyncio.sleep(0)
    return 2 * x


def test_silent_without_a_reporter() -> None:
    assert asyncio.run(progress.gather((_double(i) for i in range(3)), "x")) == [0, 2, 4]
    assert list(progress.iterate([1, 2], "y")) == [1, 2]


def test_bar_counts_to_the_total_with_eta_on_a_terminal() -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    with progress.showing(console):
        out = asyncio.run(progress.gather((_double(i) for i in range(5)), "scoring reviews"))
        assert list(progress.iterate(range(3), "reading rows")) == [0, 1, 2]
    assert out == [0, 2, 4, 6, 8]
    text = buf.getvalue()
    assert "scoring reviews" in text and "5/5" in text and "ETA" in text
    assert "reading rows" in text and "3/3" in text


def test_nothing_is_drawn_when_not_a_terminal() -> None:
    buf = io.StringIO()
    with progress.showing(Console(file=buf, force_terminal=False)):
        list(progress.iterate(range(3), "rows"))
    assert buf.getvalue() == ""

"""A server that never answered (closed port) stops the run at once; a server that answered
before and then drops a connection is retried (a restart is transient)."""

from __future__ import annotations

import socket
import time

import pytest
from typer.testing import CliRunner

from prism_review.llm import FatalProviderError
from prism_review.testing.llm_server import Fault

from ._steps import LabelIn, LabelStep

GOOD = {"label": "positive", "score": 3, "reasons": ["clear"]}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens


async def test_closed_port_is_fatal_without_retries(llm_cache_dir) -> None:
    from prism_review.llm import make_judge

    url = f"http://127.0.0.1:{_closed_port()}/v1"
    judge = make_judge(f"openai-compatible/m@{url}", cache_dir=llm_cache_dir, api_key="k",
                       retry_base=0.5)  # fmt: skip
    t0 = time.perf_counter()
    with pytest.raises(FatalProviderError, match="cannot connect to .*is the server running"):
        await judge.run(LabelStep(), LabelIn(text="x"))
    assert judge.stats.retries == 0  # was 6 back-off retries per call (99 s on the demo)
    assert time.perf_counter() - t0 < 5
    await judge.aclose()


async def test_a_server_that_answered_before_is_retried(llm_server, loopback_judge) -> None:
    judge = loopback_judge()
    llm_server.script(GOOD, Fault.disconnect(), GOOD)
    assert (await judge.run(LabelStep(), LabelIn(text="a"))).ok
    assert (await judge.run(LabelStep(), LabelIn(text="b"))).ok
    assert judge.stats.retries == 1


def test_evaluate_on_a_dead_port_exits_3_with_one_clear_line(tmp_path) -> None:
    from prism_review.cli import app

    url = f"http://127.0.0.1:{_closed_port()}/v1"
    res = CliRunner().invoke(
        app,
        ["evaluate", "--judge", f"openai-compatible/m@{url}", "--dimension", "depth", "--limit",
         "1", "--out", str(tmp_path / "run"), "--quiet", "--cache-dir", str(tmp_path / "c")],
    )  # fmt: skip
    assert res.exit_code == 3, res.output
    assert f"cannot connect to {url}; is the server running at that URL?" in " ".join(
        res.output.split()
    )

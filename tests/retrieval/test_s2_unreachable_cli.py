"""``prism evaluate --retrieval s2`` with Semantic Scholar unreachable stops with one clear line."""

from __future__ import annotations

import socket

from typer.testing import CliRunner

from prism_review.cli import app


def test_unreachable_s2_exits_3_naming_the_server_and_the_way_out(tmp_path, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/graph/v1"
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_BASE", url)
    res = CliRunner().invoke(
        app,
        ["evaluate", "--dimension", "novelty", "--retrieval", "s2", "--limit", "1", "--out",
         str(tmp_path / "run"), "--quiet", "--no-report"],
    )  # fmt: skip
    assert res.exit_code == 3, res.output
    line = next(x for x in res.output.split("\n") if x.startswith("stopped:"))
    assert f"cannot reach Semantic Scholar at {url}" in line and "--retrieval local" in line

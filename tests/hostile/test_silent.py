"""Silent no-ops (issue 26, kind 7): an empty ``paper_ids_200_*.txt`` is said and counted, never
a run of 0 papers with exit 0."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import EvalLayout
from prism_review.guards.errors import DataError
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()


def test_an_empty_default_manifest_is_a_counted_problem(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    manifest = root / "ICLR2024" / "paper_ids_200_iclr2024.txt"
    manifest.write_text("\n# nothing here\n")
    lay = EvalLayout(root)
    assert lay.paper_ids("ICLR2024") == ["p1", "p2"]  # the papers/ listing, said
    assert [str(p) for p in lay.problems] == [
        f"{manifest}: manifest lists no paper id; using the papers/ listing"]
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--venue", "ICLR2024", "--system", "sea", "--quiet"])
    assert res.exit_code == 1, res.output
    assert "manifest lists no paper id" in " ".join(res.output.split())
    assert {json.loads(x)["paper_id"] for x in (out / "results.jsonl").read_text().splitlines()} == {"p1", "p2"}


def test_an_empty_named_manifest_is_an_error(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    (root / "ICLR2024" / "empty.txt").write_text("")
    try:
        EvalLayout(root).paper_ids("ICLR2024", "empty.txt")
    except DataError as exc:
        assert exc.message == "manifest lists no paper id"
    else:
        raise AssertionError("an empty manifest was accepted")

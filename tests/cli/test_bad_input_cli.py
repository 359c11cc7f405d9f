"""Malformed input files: each is named with its field, only its own reviews are skipped."""

from __future__ import annotations

import shutil

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import demo_root
from prism_review.pipelines.results import read_results


def test_malformed_files_are_named_and_lose_nothing_else(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo_root(), data)
    human = data / "ICLR2024" / "human_reviews" / "0A5o6dCKeK.json"
    human.write_text(human.read_text()[:400])  # truncated JSON
    byo = data / "ICLR2024" / "gpt4" / "reviews.jsonl"
    lines = byo.read_text().split("\n")
    lines[2] = lines[2][:50]  # one torn row
    byo.write_text("\n".join(lines))

    res = CliRunner().invoke(
        app, ["evaluate", "--data", str(data), "--dimension", "depth", "--out", str(tmp_path / "run"), "--quiet"]
    )
    assert res.exit_code == 1, res.output  # finished, but says the input had problems
    assert "0A5o6dCKeK.json: invalid JSON" in res.output
    assert "gpt4/reviews.jsonl (field 'line 3')" in res.output
    rows = read_results(tmp_path / "run")
    by_system = {s: sum(r.system == s for r in rows) for s in {r.system for r in rows}}
    # NExT-GPT's four human reviews are lost with their file; the 20 other human files stay
    assert by_system == {"human": 20, "claude_opus": 20, "gemini_pro_1.5": 20, "gpt4": 19}
    errors = (tmp_path / "run" / "errors.jsonl").read_text()
    assert '"field": "line 3"' in errors


def test_a_run_where_every_unit_fails_ends_with_a_message_not_a_traceback(tmp_path, monkeypatch):
    from prism_review.dimensions.base import get_dimension

    async def broken(self, unit, ctx):
        raise RuntimeError("judge exploded")

    monkeypatch.setattr(type(get_dimension("constructiveness")), "evaluate", broken)
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app, ["evaluate", "--dimension", "constructiveness", "--limit", "2", "--out", str(out), "--quiet"]
    )
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 1, res.output
    assert "no unit finished" in res.output and "unit(s) failed" in res.output
    assert "judge exploded" in (out / "errors.jsonl").read_text()
    assert not (out / "results.jsonl").exists()


def test_report_on_a_folder_without_results_is_an_error_message(tmp_path):
    res = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.exception
    assert "no results log" in res.stderr

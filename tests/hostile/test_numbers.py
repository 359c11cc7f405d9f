"""Numbers outside the parse limits (issue 26, kind 2): a 5,000-digit integer, a float that
overflows, bare NaN/Infinity. Every reader parses JSON through ``limits.loads``, so the file (or
line) is named and skipped, counted, and the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.jsonl import iter_jsonl, read_jsonl
from prism_review.data.skips import SkipLog
from prism_review.guards import limits
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()
HUGE = "9" * 5000


@pytest.mark.parametrize(("number", "reason"), [
    (HUGE, "integer of 5,000 digits, over the 40-digit limit"),
    ("-" + HUGE, "integer of 5,000 digits, over the 40-digit limit"),
    ("1e999", "number 1e999 overflows a float"),
    ("NaN", "NaN is not a number JSON allows"),
    ("-Infinity", "-Infinity is not a number JSON allows"),
])
def test_loads_refuses_numbers_outside_the_limits(number: str, reason: str) -> None:
    with pytest.raises(json.JSONDecodeError) as exc:
        limits.loads('{"rating": ' + number + "}")
    assert reason in limits.json_problem(exc.value)
    assert limits.loads('{"rating": ' + "9" * 40 + ", \"x\": 1.5e300}") == {"rating": int("9" * 40), "x": 1.5e300}


def test_a_jsonl_line_with_a_huge_integer_is_a_counted_skip(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n{"a": ' + HUGE + '}\n{"a": 3}\n')
    skips = SkipLog()
    assert [row["a"] for _, row in iter_jsonl(path, skips)] == [1, 3]
    [entry] = skips.skips
    assert entry.record == "line 2" and "5,000 digits" in entry.message


def test_labelled_files_keep_their_nan(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"label": NaN}\n')
    [row] = read_jsonl(path)
    assert row["label"] != row["label"]


def test_evaluate_names_the_file_skips_it_and_goes_on(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    bad = root / "ICLR2024" / "human_reviews" / "p2.json"
    doc = json.loads(bad.read_text())
    doc["reviews"][0]["Rating"] = "PLACEHOLDER"
    bad.write_text(json.dumps(doc).replace('"PLACEHOLDER"', HUGE))
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--venue", "ICLR2024", "--system", "sea", "--quiet"])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 1, res.output  # an input problem: said, counted, the run finished
    assert "1 input problem(s)" in res.output and "2 units (0 resumed, 0 failed)" in res.output
    assert "p2.json: invalid JSON (integer of 5,000 digits, over the 40-digit limit" in res.output
    errors = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    assert any("p2.json" in e.get("path", "") and "5,000 digits" in e["error"] for e in errors), errors
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["paper_id"] for r in rows} >= {"p1"}

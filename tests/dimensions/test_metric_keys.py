"""A unit's rows are checked against the metrics its dimension declares: the documented
word-count dimension with one key misspelt ("word" for "words") fails every unit, counted and
named in errors.jsonl, instead of writing ok rows with an empty Table-1 column."""

from __future__ import annotations

import json
import types
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    ResultRow,
    dimension_names,
    unregister_dimension,
)
from prism_review.pipelines.results import read_results

from .test_extending_dimension import DOC, _doc_module

GOOD = '"words": len(text.split())'


@pytest.fixture
def misspelt() -> Iterator[None]:
    if "wordcount" in dimension_names():
        pytest.skip("a dimension named 'wordcount' is installed (the packaged docs' toy?)")
    code = _doc_module()
    assert GOOD in code
    module = types.ModuleType("wordcount_misspelt")
    exec(compile(code.replace(GOOD, '"word": len(text.split())'), str(DOC), "exec"),
         module.__dict__)
    try:
        yield
    finally:
        unregister_dimension("wordcount")


def test_a_misspelt_metric_key_fails_each_unit_with_the_reason(misspelt: None, tmp_path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", "--dimension", "wordcount", "--limit", "1",
                                   "--out", str(out), "--no-report", "--quiet"])
    assert res.exit_code != 0, res.output
    assert not (out / "results.jsonl").exists() or read_results(out / "results.jsonl") == []
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert errors and all(e["dimension"] == "wordcount" for e in errors)
    assert all("undeclared metric(s) 'word'" in e["error"] and "missing metric(s) 'words'"
               in e["error"] for e in errors), errors[0]


class _Probe(Dimension):
    name = "probe_keys"
    label = "Probe"
    metrics = [MetricSpec(key="a", label="A")]
    row_metrics = ("n_*",)

    def work_units(self, paper, reviews, systems):  # type: ignore[no-untyped-def]
        return []

    async def evaluate(self, unit, ctx):  # type: ignore[no-untyped-def]
        return []


def _row(status: str, **metrics: float | None) -> ResultRow:
    return ResultRow(dimension="probe_keys", venue="V", paper_id="p", system="s",
                     reviewer_id="r", status=status, metrics=metrics)  # type: ignore[arg-type]


def test_check_rows_reads_columns_row_metrics_and_status() -> None:
    probe = _Probe()
    probe.check_rows([_row("ok", a=None, n_units=3), _row("unscored"), _row("skipped", a=None)])
    with pytest.raises(ValueError, match="missing metric\\(s\\) 'a'"):
        probe.check_rows([_row("ok", n_units=3)])  # null is a value; absent is not
    with pytest.raises(ValueError, match="undeclared metric\\(s\\) 'b'"):
        probe.check_rows([_row("unscored", b=1.0)])


"""docs/extending.md, "Adding a dimension": the page's module, run as written.

The code block of that section is executed as a module (so the documented code is what is
tested), which registers a word-count dimension; ``prism evaluate --dimension wordcount`` on
the bundled demo must then write its rows, read the text its policy names, and show its
headline metric as a Table-1 column; after unregistering, the name is unknown again.
"""

from __future__ import annotations

import csv
import re
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import EvalLayout, demo_root
from prism_review.dimensions.base import dimension_names, unregister_dimension
from prism_review.dimensions.review_text import review_text
from prism_review.pipelines.results import read_results
from prism_review.systems.parsing import family

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"


def _doc_module() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Adding a dimension", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the section shows one module"
    return blocks[0]


@pytest.fixture
def wordcount() -> Iterator[type]:
    if "wordcount" in dimension_names():
        pytest.skip("a dimension named 'wordcount' is installed (the packaged docs' toy?)")
    module = types.ModuleType("wordcount_from_docs")
    exec(compile(_doc_module(), str(DOC), "exec"), module.__dict__)  # registers it (@register)
    try:
        yield module.WordCountDimension
    finally:
        unregister_dimension("wordcount")


def _run(out: Path, *extra: str):
    return CliRunner().invoke(
        app, ["evaluate", "--dimension", "wordcount", "--limit", "2", "--out", str(out),
              "--no-report", "--quiet", *extra]
    )


def test_documented_dimension_runs_through_evaluate(wordcount: type, tmp_path: Path) -> None:
    assert "wordcount" in dimension_names()
    assert dimension_names()[-1] == "wordcount"  # order 90: after the four PRISM dimensions
    out = tmp_path / "run"
    res = _run(out)
    assert res.exit_code == 0, res.output

    rows = read_results(out / "results.jsonl")
    assert rows and {r.dimension for r in rows} == {"wordcount"}
    assert {"human"} < {r.system for r in rows}  # human and LLM reviews alike
    layout = EvalLayout(demo_root())
    shorter = 0
    for r in rows:
        review = next(x for x in layout.load_reviews(r.venue, r.paper_id, r.system)
                      if x.reviewer_id == r.reviewer_id)
        text = review_text(review, "wordcount")
        assert r.status == "ok" and r.metrics["words"] == len(text.split())
        assert r.metrics["questions"] == text.count("?")
        # the policy reads weaknesses and questions, never the summary
        summaries = [s.text.strip() for s in review.sections if family(s.name) == "summary"]
        assert not any(s and s in text for s in summaries)
        shorter += r.metrics["words"] < len(review.text.split())
    assert shorter == len(rows)

    summary_md = (out / "summary.md").read_text(encoding="utf-8")
    table1 = summary_md.split("## Table 1", 1)[1].split("\n\n")[1]
    assert table1.splitlines()[0] == "| System | Words |"  # headline=True only: no question marks
    assert "## Critique length" in summary_md and "Question marks" in summary_md
    with (out / "summary.csv").open(encoding="utf-8") as fh:
        cells = [c for c in csv.DictReader(fh) if c["venue"] == "ALL" and c["system"] == "human"]
    assert {c["metric"] for c in cells} == {"words", "questions"}
    assert all(int(c["n"]) > 0 for c in cells)
    assert wordcount.table1_note in res.output  # the guide under Table 1 explains the column


def test_unregistered_dimension_is_unknown_again(tmp_path: Path) -> None:
    if "wordcount" in dimension_names():
        pytest.skip("a dimension named 'wordcount' is installed (the packaged docs' toy?)")
    module = types.ModuleType("wordcount_from_docs")
    exec(compile(_doc_module(), str(DOC), "exec"), module.__dict__)
    unregister_dimension("wordcount")
    assert "wordcount" not in dimension_names()
    res = _run(tmp_path / "run")
    assert res.exit_code == 2 and "wordcount" in res.output

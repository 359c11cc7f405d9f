"""docs/extending.md, "Adding a reviewer system": the page's toy module, registered at run time,
is evaluated by ``prism evaluate`` through the same paths as the built-in systems (layout,
validation, text policy, results, Table 1), then unregistered."""

from __future__ import annotations

import csv
import re
import shutil
import types
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import EvalLayout, demo_root
from prism_review.data.layout_check import validate_layout
from prism_review.pipelines.results import read_results
from prism_review.records import render_sections
from prism_review.systems import get_system, register_system, unregister_system
from prism_review.systems.registry import find_system

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
VENUE = "ICLR2024"
LIMIT = 4


def _doc_module() -> types.ModuleType:
    """The Python block of the page's section, run as a module (the page is what is tested)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Adding a reviewer system", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the section has no python block"
    module = types.ModuleType("toy_reviewer")
    exec(compile(code.group(1), str(DOC), "exec"), module.__dict__)  # noqa: S102
    return module


@pytest.fixture
def toy(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A copy of the demo with a ``toy/`` folder: the gpt4 reviews of the first papers as
    Markdown files (one of them empty), and the page's system registered for the test."""
    if find_system("toy") is not None:
        pytest.skip("a system named 'toy' is installed (the packaged docs' toy?)")
    root = tmp_path / "data"
    shutil.copytree(demo_root(), root)
    layout = EvalLayout(root)
    ids = layout.paper_ids(VENUE)[:LIMIT]
    folder = root / VENUE / "toy"
    folder.mkdir()
    written = []
    for pid in ids:
        reviews = layout.load_reviews(VENUE, pid, "gpt4")
        if reviews:
            body = "\n\n".join(f"## {s.name}\n\n{s.text}" for s in reviews[0].sections)
            (folder / f"{pid}.md").write_text(body, encoding="utf-8")
            written.append(pid)
    assert len(written) >= 3, written
    empty = written.pop()
    (folder / f"{empty}.md").write_text("  \n", encoding="utf-8")
    module = _doc_module()
    register_system(module.SPEC)
    try:
        yield root, written, empty
    finally:
        unregister_system(module.SPEC.id)


def _evaluate(root: Path, out: Path, empty: str, *extra: str) -> None:
    res = CliRunner().invoke(app, ["evaluate", "--data", str(root), "--system", "toy",
                                   "--dimension", "constructiveness", "--limit", str(LIMIT),
                                   "--out", str(out), "--quiet", *extra])  # fmt: skip
    # exit 1: the run finished, with an input problem (the empty file) named, never rc 0
    assert res.exit_code == 1, res.output
    flat = "".join(res.output.split())  # the console wraps long lines
    assert f"toy/{empty}.md:noreviewtext" in flat, res.output


def test_toy_system_through_prism_evaluate(toy, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, written, empty = toy
    spec = get_system("ToyReviewer")  # found by label, folder and id like a built-in
    assert spec.id == "toy" and spec.folder == "toy"
    assert "toy" in EvalLayout(root).systems(VENUE)
    # its check runs in prism data validate: the empty file, and nothing else of it
    problems = [p for p in validate_layout(root, require_all_systems=False) if "/toy/" in p.path]
    assert [Path(p.path).name for p in problems] == [f"{empty}.md"], problems

    out = tmp_path / "run"
    _evaluate(root, out, empty)
    rows = [r for r in read_results(out) if r.system == "toy"]
    assert sorted(r.paper_id for r in rows) == sorted(written)
    assert all(r.status == "ok" and r.reviewer_id == "LLM_Reviewer" for r in rows), rows
    # the empty file is reported in errors.jsonl, naming the file
    assert f"toy/{empty}.md" in (out / "errors.jsonl").read_text(encoding="utf-8")
    # the clean LLM text policy: the loader's sections, as the dimension received them
    layout = EvalLayout(root)
    for pid in written:
        review = layout.load_reviews(VENUE, pid, "toy")[0]
        assert review.system == "toy" and render_sections(review.sections).strip()

    # Table 1: the toy row is the mean over papers of each paper's MCS
    per_paper: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.metrics.get("mcs") is not None:
            per_paper[r.paper_id].append(float(r.metrics["mcs"]))
    expected = sum(sum(v) / len(v) for v in per_paper.values()) / len(per_paper)
    with (out / "summary.csv").open(encoding="utf-8") as fh:
        table = [row for row in csv.DictReader(fh)
                 if row["system"] == "toy" and row["metric"] == "mcs" and row["venue"] == "ALL"]
    assert len(table) == 1 and int(table[0]["n"]) == len(per_paper)
    assert float(table[0]["mean"]) == pytest.approx(expected, abs=1e-6)
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert re.search(rf"^\| toy \| {expected:.3f} ± ", summary, re.M), summary

    # no original behaviour to reproduce: --compat judges the same text, so the same metrics
    _evaluate(root, tmp_path / "compat", empty, "--compat")
    compat = {r.unit_key: r.metrics for r in read_results(tmp_path / "compat") if r.system == "toy"}
    assert compat == {r.unit_key: r.metrics for r in rows}


def test_unregistered_after_the_test() -> None:
    if find_system("toy") is not None:
        pytest.skip("a system named 'toy' is installed (the packaged docs' toy?)")
    with pytest.raises(KeyError):
        get_system("toy")

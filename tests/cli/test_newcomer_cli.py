"""Issue 28, a newcomer's second hour: no silent no-ops, no hints that fail.

Each test runs the command a new user would type, as in the README and docs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import demo_root
from prism_review.pipelines.results import read_results


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, " ".join(res.output.split())


# -- 1. a sample of any source filters the run, an empty one is refused -------------------------
def test_sample_of_the_demo_layout_filters_the_run(tmp_path: Path) -> None:
    code, out = _run("data", "sample", str(demo_root()), "--size", "5", "--seed", "13",
                     "--out", str(tmp_path / "M"))
    assert code == 0, out
    manifest = json.loads((tmp_path / "M" / "sample_manifest.json").read_text())
    ids = manifest["venues"]["ICLR2024"]["paper_ids"]
    assert len(ids) == 5
    code, out = _run("evaluate", "--sample", str(tmp_path / "M"), "--dimension",
                     "constructiveness", "--out", str(tmp_path / "run"), "--quiet")
    assert code == 0, out
    assert {r.paper_id for r in read_results(tmp_path / "run" / "results.jsonl")} == set(ids)


def test_sample_that_selects_nothing_is_refused_with_the_reason(tmp_path: Path) -> None:
    code, out = _run("data", "sample", str(demo_root()), "--size", "5", "--classes", "oral",
                     "--out", str(tmp_path / "M"))
    assert code == 1 and "no paper to sample" in out and "reject 11" in out, out
    assert not (tmp_path / "M").exists()
    (tmp_path / "empty.json").write_text('{"venues": {}}')
    (tmp_path / "other.json").write_text('{"venues": {"ICLR2025": {"paper_ids": ["x"]}}}')
    for name, reason in [("empty.json", "the sample selects no paper"),
                         ("other.json", "the sample's venues (ICLR2025) are not in the data")]:
        code, out = _run("evaluate", "--sample", str(tmp_path / name), "--out",
                         str(tmp_path / "run"), "--quiet")
        assert code == 2 and reason in out, out
        assert not (tmp_path / "run").exists()  # refused: no folder holding only .lock


def test_sample_of_a_proreviewer_folder_filters_the_run(tmp_path: Path) -> None:
    """ProReviewer's files (train = ICLR 2025, test = ICLR 2026) read by the generic source path:
    the sample's papers, and only those, are evaluated."""
    import random

    def row(pid: str, year: int, decision: str) -> dict[str, object]:
        words = " ".join(random.Random(pid).sample(["method", "baseline", "ablation", "data",
                                                    "novelty", "proof", "figure", "metric"], 5))
        reviews = [{"id": f"{pid}-r{i}", "initial_rating": 3 + 2 * i, "confidence": 3,
                    "summary": f"The paper studies {words}.", "strengths": "Clear writing.",
                    "weaknesses": f"The {words} are not compared with a strong baseline; "
                                  "please add an ablation of each component.",
                    "questions": "How sensitive is the method to its learning rate?"}
                   for i in range(2)]
        return {"paper_id": pid, "arxiv_id": None, "title": pid,
                "markdown": {"content": f"# {pid}\n\nWe study {words}.", "metadata": {"pages": 1}},
                "reviews": reviews, "scores": {"mean_rating": 4.0},
                "metadata": {"venue": f"ICLR {year} Poster", "venueid": f"ICLR.cc/{year}/Conference"},
                "meta_review": {"metareview": ""}, "decision": {"decision": decision}}

    import pyarrow as pa
    import pyarrow.parquet as pq

    src = tmp_path / "proreviewer"  # the Hugging Face dataset's parquet layout
    (src / "data").mkdir(parents=True)
    for split, year in (("train", 2025), ("test", 2026)):
        rows = [row(f"{split}{i}", year, "Reject" if i % 2 else "Accept (Poster)") for i in range(6)]
        pq.write_table(pa.Table.from_pylist(rows), src / "data" / f"{split}-00000-of-00001.parquet")
    code, out = _run("data", "sample", str(src), "--size", "4", "--seed", "3",
                     "--out", str(tmp_path / "M"))
    assert code == 0, out
    venues = json.loads((tmp_path / "M" / "sample_manifest.json").read_text())["venues"]
    ids = {(v, p) for v, entry in venues.items() for p in entry["paper_ids"]}
    assert len(ids) == 8 and {v for v, _ in ids} == {"ICLR2025", "ICLR2026"}, venues  # 4 a venue
    code, out = _run("evaluate", "--data", str(src), "--sample", str(tmp_path / "M"),
                     "--dimension", "constructiveness", "--out", str(tmp_path / "run"), "--quiet",
                     "--no-report")
    assert code == 0, out
    rows = read_results(tmp_path / "run" / "results.jsonl")
    assert {(r.venue, r.paper_id) for r in rows} == ids  # 8 of the 12 papers, exactly those


# -- 2. a dry run never touches the run folder; refused runs leave no folder ---------------------
def test_dry_run_leaves_the_run_folder_untouched(tmp_path: Path) -> None:
    run = tmp_path / "demo"
    code, out = _run("evaluate", "--dimension", "constructiveness", "--limit", "2", "--out",
                     str(run), "--quiet")
    assert code == 0, out
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    code, out = _run("evaluate", "--judge", "ollama/x", "--dry-run", "--dimension",
                     "constructiveness", "--limit", "2", "--out", str(run), "--quiet")
    assert code == 0, out
    assert "holds a run made with other settings" in out and "estimated as a new folder" in out.lower()
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    fresh = tmp_path / "fresh"
    code, out = _run("evaluate", "--judge", "ollama/x", "--dry-run", "--dimension",
                     "constructiveness", "--limit", "2", "--out", str(fresh), "--quiet")
    assert code == 0 and "calls" in out, out
    assert not fresh.exists()


def test_refused_run_leaves_no_folder(tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    code, out = _run("evaluate", "--system", "gtp4", "--out", str(out_dir), "--quiet")
    assert code == 2 and "unknown system" in out, out
    assert not out_dir.exists()


# -- 3. every printed "Next" hint is a command that works on that run ---------------------------
def _byo(tmp_path: Path) -> Path:
    """A bring-your-own layout: the demo's papers and human reviews, and three my_reviewer rows."""
    import shutil

    src, root = demo_root() / "ICLR2024", tmp_path / "byo" / "ICLR2024"
    shutil.copytree(src / "papers", root / "papers")
    shutil.copytree(src / "human_reviews", root / "human_reviews")
    shutil.copy(src / "paper_metadata.jsonl", root / "paper_metadata.jsonl")
    (root / "my_reviewer").mkdir()
    rows = (src / "gpt4" / "reviews.jsonl").read_text().splitlines()[:3]
    (root / "my_reviewer" / "reviews.jsonl").write_text("\n".join(rows) + "\n")
    return tmp_path / "byo"


def _hints(output: str) -> list[list[str]]:
    import shlex

    return [shlex.split(line.split("prism ", 1)[1]) for line in output.splitlines()
            if line.strip() and "? prism " in line]


def test_next_hints_run_on_a_system_run_of_a_byo_folder(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "byo"
    res = CliRunner().invoke(app, ["evaluate", "--data", str(_byo(tmp_path)), "--system",
                                   "my_reviewer", "--dimension", "flaws", "--dimension", "depth",
                                   "--out", str(run), "--quiet"])
    assert res.exit_code == 0, res.output
    hints = _hints(res.output)
    assert hints, res.output
    for args in hints:
        code, out = _run(*args)
        assert code == 0, (args, out)
        assert "my_reviewer vs human" in out
        assert "no test (< 10 pairs)" in out and "0.0000" in out  # means shown, the test not
        assert "== depth" not in out  # human has no depth row: the hint names flaws only
    code, out = _run("compare", "--run", str(run), "--a", "my_reviewer", "--b", "human",
                     "--dimension", "depth")
    assert code == 2 and "human has rows in: flaws" in out, out


def test_next_hints_run_on_the_demo(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["evaluate", "--dimension", "constructiveness", "--limit", "3",
                                   "--out", str(tmp_path / "demo"), "--quiet"])
    assert res.exit_code == 0, res.output
    hints = _hints(res.output)
    assert hints, res.output
    for args in hints:
        code, out = _run(*args)
        assert code == 0 and "vs human" in out, (args, out)


# -- 4. every unknown name lists the valid names, closest first ----------------------------------
def test_compare_unknown_dimension_and_self_comparison(tmp_path: Path) -> None:
    run = tmp_path / "demo"
    code, out = _run("evaluate", "--dimension", "constructiveness", "--limit", "2", "--out",
                     str(run), "--quiet")
    assert code == 0, out
    code, out = _run("compare", "--run", str(run), "--a", "gpt4", "--b", "human",
                     "--dimension", "constructivenes")
    assert code == 2 and "valid dimensions (closest first): constructiveness" in out, out
    code, out = _run("compare", "--run", str(run), "--a", "gpt4", "--b", "human",
                     "--venue", "ICLR2042")
    assert code == 2 and "valid venues (closest first): ICLR2024" in out, out
    code, out = _run("compare", "--run", str(run), "--a", "gpt4", "--b", "GPT4")
    assert code == 0 and "warning: --a and --b both name gpt4" in out, out


def test_agreement_unknown_dataset_is_named_before_the_missing_file() -> None:
    code, out = _run("agreement", "--dataset", "disaprer")
    assert code == 2 and "unknown agreement dataset 'disaprer'" in out, out
    assert "(closest first): disapere, disapere-novelty" in out and "--file is required" not in out
    code, out = _run("evaluate", "--protocol", "economy", "--quiet")
    assert code == 2 and "valid protocols (closest first): economical" in out, out


# -- 5. the perturbation scorer has a shipped example that runs offline ---------------------------
def test_shipped_perturbation_example_runs_offline(tmp_path: Path) -> None:
    from importlib.resources import files

    example = Path(str(files("prism_review") / "resources" / "examples" / "perturbation"))
    docs = (Path(__file__).parents[2] / "docs" / "tasks.md").read_text()
    assert "src/prism_review/resources/examples/perturbation" in docs
    code, out = _run("perturbation", "score", "--rows", str(example / "rows.jsonl"), "--comments",
                     str(example / "comments.jsonl"), "--out", str(tmp_path / "pert"))
    assert code == 0, out
    result = json.loads((tmp_path / "pert" / "results.json").read_text())
    assert result["overall"]["location_recall"] == 0.5 and result["n_rows_missing_comments"] == 0
    assert result["by_category"]["Surface"]["location_recall"] == 0.6
    code, out = _run("perturbation", "score", "--rows", str(example / "rows.jsonl"), "--comments",
                     str(example / "comments.jsonl"), "--method", "fuzzy")
    assert code == 0 and '"fuzzy_recall"' in out, out


# -- 6. export-layout keeps every system; validate agrees with evaluate -------------------------
def test_export_layout_keeps_the_llm_systems_and_validates(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    code, out = _run("data", "export-layout", str(demo_root()), "--out", str(exp))
    assert code == 0, out
    assert {"gpt4", "claude_opus", "gemini_pro_1.5", "human_reviews", "papers"} <= {
        p.name for p in (exp / "ICLR2024").iterdir()}
    assert "20 gpt4 review(s)" in out
    code, out = _run("data", "validate", str(exp))
    assert code == 0 and "ok" in out, out
    runs = {}
    for name, data in (("demo", None), ("exp", exp)):
        args = ["evaluate", "--dimension", "constructiveness", "--limit", "4", "--out",
                str(tmp_path / f"run-{name}"), "--quiet", "--no-report"]
        code, out = _run(*args, *(["--data", str(data)] if data else []))
        assert code == 0, out
        runs[name] = {(r.paper_id, r.system, r.reviewer_id): r.metrics.get("mcs")
                      for r in read_results(tmp_path / f"run-{name}" / "results.jsonl")}
    assert runs["exp"] == runs["demo"] and {s for _, s, _ in runs["demo"]} > {"human"}
    assert all(v is not None for v in runs["demo"].values())


def test_validate_accepts_what_evaluate_runs_on(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "human-only" / "ICLR2024"  # as export-layout writes a corpus: human only
    shutil.copytree(demo_root() / "ICLR2024" / "papers", root / "papers")
    shutil.copytree(demo_root() / "ICLR2024" / "human_reviews", root / "human_reviews")
    code, out = _run("evaluate", "--data", str(root.parent), "--dimension", "constructiveness",
                     "--limit", "1", "--out", str(tmp_path / "run"), "--quiet", "--no-report")
    assert code == 0, out
    code, out = _run("data", "validate", str(root.parent))
    assert code == 0, out
    code, out = _run("data", "validate", str(root.parent), "--complete")
    assert code == 1 and "review folder for system 'sea' is missing" in out, out


# -- 7. help fits 80 columns, nothing cut; --version ---------------------------------------------
def _commands() -> list[list[str]]:
    from typing import Any

    import typer

    out: list[list[str]] = []

    def walk(cmd: Any, path: list[str]) -> None:
        out.append(path)
        if hasattr(cmd, "commands"):  # a group (typer vendors its own click)
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


def test_every_help_fits_80_columns_without_cuts() -> None:
    commands = _commands()
    assert ["evaluate"] in commands and ["perturbation", "score"] in commands
    for path in commands:
        res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80", "NO_COLOR": "1"},
                                 terminal_width=80)
        assert res.exit_code == 0, (path, res.output)
        assert "…" not in res.output, (path, res.output)
        long = [line for line in res.output.splitlines() if len(line) > 80]
        assert not long, (path, long)
        assert "[bold]" not in res.output and "[/" not in res.output, path  # no raw markup


def test_version() -> None:
    from prism_review import __version__

    code, out = _run("--version")
    assert code == 0 and out == f"prism-review {__version__}"


# -- 9. docs/results.md's pandas snippet runs, and an extra installs pandas -----------------------
def test_results_pandas_snippet_runs_and_the_analysis_extra_names_pandas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re
    import tomllib

    root = Path(__file__).parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("pandas") for req in extras["analysis"])
    docs = (root / "docs" / "results.md").read_text()
    assert 'pip install -e ".[analysis]"' in docs
    pytest.importorskip("pandas")
    snippet = re.search(r"## Reading it with pandas.*?```python\n(.*?)```", docs, re.S)
    assert snippet is not None
    code, out = _run("evaluate", "--dimension", "depth", "--limit", "2", "--out",
                     str(tmp_path / "runs" / "demo"), "--quiet", "--no-report")
    assert code == 0, out
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet.group(1), "results.md", "exec"), {})  # noqa: S102

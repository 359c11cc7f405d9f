"""Malformed input files: each is named with its field, only its own reviews are skipped."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import demo_root
from prism_review.pipelines.results import read_results

sys.path.insert(0, str(Path(__file__).parents[1] / "data"))
from data_shapes import corpus_row, write_corpus  # noqa: E402


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


def _byo_layout(tmp_path):
    """The demo with a bring-your-own system whose line 2 names a paper that has no text."""
    data = tmp_path / "data"
    shutil.copytree(demo_root(), data)
    byo = data / "ICLR2024" / "my_llm"
    byo.mkdir()
    rows = [
        {"paper_id": "0A5o6dCKeK", "text": "The method is unclear; Table 2 lacks a baseline."},
        {"paper_id": "no-such-paper", "text": "A review of a paper missing from papers/."},
        {"paper_id": "words-are-all-you-need-language-as-an-approximat", "text": "Fine."},
    ]
    (byo / "reviews.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return data


def test_byo_row_of_a_paper_without_text_is_named_not_dropped(tmp_path):
    data = _byo_layout(tmp_path)
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", "--data", str(data), "--system", "my_llm",
                                   "--dimension", "constructiveness", "--limit", "1",
                                   "--out", str(out), "--quiet", "--no-report"])
    assert res.exit_code == 1, res.output  # the run finished, but a review was left out
    assert "my_llm/reviews.jsonl (field 'line 2: paper_id'): review of paper 'no-such-paper'" in res.output
    assert "line 3" not in res.output  # a paper outside --limit is not a problem
    assert {r.paper_id for r in read_results(out)} == {"0A5o6dCKeK"}
    assert '"field": "line 2: paper_id"' in (out / "errors.jsonl").read_text()
    res = CliRunner().invoke(app, ["data", "validate", str(data)])
    assert res.exit_code == 1
    assert "my_llm/reviews.jsonl [line 2: paper_id]: review of paper 'no-such-paper'" in res.output


@pytest.mark.parametrize("value", ["0", "-1"])
@pytest.mark.parametrize("command", [
    ["evaluate", "--dimension", "constructiveness"],
    ["agreement", "--dataset", "revutil", "--file", "labels.jsonl"],
    ["task", "acceptance"],
    ["data", "export-layout", "src", "--out", "exported"],
])
def test_limit_below_one_is_refused_not_a_silent_run(tmp_path, monkeypatch, command, value):
    # --limit 0 used to run nothing and exit 0; --limit -1 dropped each venue's last paper
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, [*command, "--limit", value])
    assert res.exit_code == 2, res.output
    assert "--limit" in res.output
    assert not (tmp_path / "runs").exists() and not (tmp_path / "exported").exists()


def test_error_lines_carry_no_literal_markup(tmp_path):
    for args in (["--data", str(tmp_path / "missing")], ["--system", "gtp4"], ["--judge", "bogus/x"]):
        res = CliRunner().invoke(app, ["evaluate", *args, "--out", str(tmp_path / "run"), "--quiet"])
        assert res.exit_code == 2, res.output
        assert res.stderr.startswith("error: "), res.stderr  # was "[red]error:[/] ..."
    res = CliRunner().invoke(app, ["data", "export-layout", str(tmp_path / "missing"),
                                   "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and res.stderr.startswith("error: "), res.stderr


def _corpus(tmp_path, drop=()):
    import pyarrow.parquet as pq

    rows = [
        corpus_row("p1", "ICLR_2024", "Accept (oral)"),
        corpus_row("p2", "ICLR_2024", "Reject", full_text=None, grobid_fulltext=None),
        corpus_row("p3", "ICLR_2099", "Reject"),
    ]
    path = write_corpus(tmp_path / "papers.parquet", rows)
    if drop:
        pq.write_table(pq.read_table(path).drop(list(drop)), path)
    return path


def test_corpus_row_of_an_unknown_venue_and_a_paper_without_text_are_named(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", "--data", str(_corpus(tmp_path)), "--dimension",
                                   "constructiveness", "--out", str(out), "--quiet", "--no-report"])
    assert res.exit_code == 1, res.output
    # the ICLR_2099 row used to be filtered out unsaid; the empty paper's line lacked its id
    assert "papers.parquet [p3] (field 'venue'): unknown venue 'ICLR_2099'" in res.output
    assert "papers.parquet [p2] (field 'full_text'): paper text is empty" in res.output
    assert {r.paper_id for r in read_results(out)} == {"p1"}


def test_corpus_without_a_needed_column_names_it(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--data", str(_corpus(tmp_path, drop=["venue"])),
                                   "--out", str(tmp_path / "run"), "--quiet"])
    assert res.exit_code == 2, res.output
    assert res.stderr.strip().endswith("(field 'venue'): column(s) missing from the table: venue")
    assert "FieldRef" not in res.output  # was pyarrow's schema dump


def test_tasks_on_the_demo_without_ratings_say_why_and_never_exit_0():
    # the demo's human reviews carry a rating for one paper only
    res = CliRunner().invoke(app, ["task", "acceptance"])
    assert res.exit_code == 2 and "--predictor majority" in " ".join(res.stderr.split()), res.output
    res = CliRunner().invoke(app, ["task", "scores", "--predictor", "system", "--system", "gpt4"])
    assert res.exit_code == 1, res.output  # was 0 with every metric null
    assert "nothing measured" in res.stderr


def test_engine_ray_without_ray_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails, as without the extra
    res = CliRunner().invoke(app, ["evaluate", "--engine", "ray", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2, res.output
    assert 'pip install "prism-review[ray]"' in res.stderr  # rich ate "[ray]" as markup


def test_a_missing_config_file_is_refused_with_the_offline_judge_too(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--config", str(tmp_path / "prism.toml"), "--limit", "1",
                                   "--dimension", "constructiveness", "--out", str(tmp_path / "run")])
    assert res.exit_code == 2, res.output  # was a full run with the option ignored
    assert "config file not found" in res.stderr


def test_index_dir_without_an_index_is_refused_up_front(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", "--dimension", "novelty", "--limit", "1", "--retrieval",
                                   "local", "--index-dir", str(tmp_path / "none"), "--out", str(out)])
    assert res.exit_code == 2, res.output  # was exit 1 with each novelty unit failed, reason in errors.jsonl
    assert "no prism literature index" in res.stderr and not out.exists()


def test_data_pointing_into_the_layout_says_which_folder_to_pass(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo_root(), data)
    flat = tmp_path / "flat"  # papers/ with no venue folder above it
    shutil.copytree(demo_root() / "ICLR2024", flat)
    for path, hint in ((data / "ICLR2024", "this is a venue folder: pass the folder above it"),
                       (flat, "papers/ belongs in a venue folder, DATA_ROOT/<VENUE>/papers/")):
        res = CliRunner().invoke(app, ["evaluate", "--data", str(path), "--out", str(tmp_path / "r")])
        assert res.exit_code == 2, res.output
        assert hint in " ".join(res.stderr.split()), res.stderr


@pytest.mark.parametrize(("args", "code", "said"), [
    (["--size", "0"], 2, "--size"),
    (["--venue-size", "ICLR2024=0"], 2, "--venue-size"),
    (["--allocation", "weird"], 1, "unknown allocation 'weird'"),  # was written to the manifest
    (["--venue-size", "ICLR2099=3"], 1, "error: unknown venue 'ICLR2099'"),  # was '"unknown ..."'
])
def test_data_sample_refuses_an_empty_or_unknown_draw_and_writes_nothing(tmp_path, args, code, said):
    src = _corpus(tmp_path)  # so few papers per class that no allocation rule is ever applied
    out = tmp_path / "manifests"
    res = CliRunner().invoke(app, ["data", "sample", str(src), "--out", str(out), *args])
    assert res.exit_code == code, res.output
    assert said in " ".join(res.output.split())
    assert not out.exists()


def test_index_build_from_a_data_path_without_a_layout_is_an_error(tmp_path):
    for path in (tmp_path / "missing", demo_root() / "ICLR2024"):
        out = tmp_path / "index"
        res = CliRunner().invoke(app, ["index", "build", "--data", str(path), "--out", str(out)])
        assert res.exit_code == 2, res.output  # was "indexed 0 documents" and exit 0
        assert "no venue folder" in res.stderr and not out.exists()


@pytest.mark.parametrize(("dataset", "lines", "code", "said"), [
    ("revutil", ['{"x": 1}'], 2, "[line 1] (field 'review_point'): missing"),  # was a KeyError traceback
    ("disapere", ['{"sentences": []}', '{"x": 1}'], 2, "[line 1] (field 'review_id'): missing"),
    ("substanreview", ['{"id": 1, "review": "x", "spans": []}', "{bad"], 2, "[line 2]: invalid JSON"),
    ("perturbation-verifier", ['{"x": 1}'], 2, "[line 1] (field 'perturbed')"),  # was scored: accuracy 0/1
    ("perturbation-verifier", ['{"perturbed": "a", "why_wrong": "b", "gold_label": "valid"}'], 2,
     "(field 'gold_label'): expected one of substantive, typo-shaped, not-an-error, got 'valid'"),
    ("revutil-llm-reviews", ['{"x": 1}'], 1, "nothing measured"),  # was exit 0, every figure None
])
def test_agreement_on_a_file_of_the_wrong_format_names_line_and_field(tmp_path, dataset, lines, code, said):
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(lines) + "\n")
    res = CliRunner().invoke(app, ["agreement", "--dataset", dataset, "--file", str(labels)])
    assert res.exit_code == code, res.output
    assert isinstance(res.exception, SystemExit)  # a message, not a traceback
    assert said in " ".join(res.stderr.split())


def test_acceptance_file_predictor_names_every_unused_prediction_line(tmp_path):
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        '{"paper_id": "0A5o6dCKeK", "recommendation": "maybe"}\n{"x": 1}\n'
        '{"paper_id": "nope", "decision": "accept"}\n'
        '{"paper_id": "0A5o6dCKeK", "venue": "ICLR2099", "decision": "accept"}\n'
    )
    res = CliRunner().invoke(app, ["task", "acceptance", "--predictor", "file", "--predictions",
                                   str(preds), "--split", "all"])
    said = " ".join(res.stderr.split())
    assert res.exit_code == 1, res.output  # was 0 with n = 0 and nothing said (a KeyError for line 4)
    for msg in ("[line 1] (field 'recommendation'): not an accept/reject decision: 'maybe'",
                "[line 2] (field 'paper_id'): missing", "[line 3] (field 'paper_id'): no paper 'nope'",
                "[line 4] (field 'venue'): unknown venue 'ICLR2099'", "nothing measured"):
        assert msg in said, said


def test_a_damaged_results_log_is_one_line_for_report_and_compare(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.jsonl").write_text("{bad\n")
    for args in (["report", str(run)], ["compare", "--run", str(run), "--a", "gpt4", "--b", "human"],
                 ["compare", "--runs", str(run), str(run)]):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.exception  # was a traceback
        assert "line 1 is not a result row" in res.stderr


def test_out_naming_a_file_is_refused_as_such(tmp_path):
    out = tmp_path / "afile"
    out.write_text("")
    res = CliRunner().invoke(app, ["evaluate", "--out", str(out), "--limit", "1"])
    assert res.exit_code == 2, res.output  # was exit 4, "free space or fix the folder's permissions"
    assert "is a file, not a run folder" in res.stderr


def test_perturbation_score_that_scores_no_row_says_so_and_exits_1(tmp_path):
    rows, comments = tmp_path / "rows.jsonl", tmp_path / "comments.jsonl"
    rows.write_text('{"x": 1}\n')
    comments.write_text('{"id": "a__b", "comments": []}\n')
    res = CliRunner().invoke(app, ["perturbation", "score", "--rows", str(rows), "--comments", str(comments)])
    assert res.exit_code == 1, res.output  # was 0 with location_recall null
    said = " ".join(res.stderr.split())
    assert "rows.jsonl [line 1] (field 'id')" in said and "nothing measured" in said


def test_a_selection_with_nothing_to_score_is_not_a_success(tmp_path):
    # on the demo the first paper (NExT-GPT) has human reviews only
    res = CliRunner().invoke(app, ["evaluate", "--system", "gpt4", "--limit", "1", "--dimension",
                                   "constructiveness", "--out", str(tmp_path / "run"), "--quiet"])
    assert res.exit_code == 1, res.output  # was 0 after "no results yet: no unit finished"
    assert "nothing to evaluate" in " ".join(res.output.split())

"""Silent drops (issue 26, kind 7): a value the readers cannot use is a counted skip naming file and
field, or an error naming file and line — never dropped, retyped or mixed in unsaid."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import EvalLayout
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()


def _human(root: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    path = root / "ICLR2024" / "human_reviews" / "p1.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


def test_an_empty_reviews_list_is_a_counted_skip_shown_by_evaluate(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    path = _human(root, lambda d: d.update(reviews=[]))
    lay = EvalLayout(root)
    assert lay.load_reviews("ICLR2024", "p1", "human") == []
    note = "'reviews' is an empty list: the paper has no human review"
    assert (str(path), note) in lay.skipped
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--system", "human", "--quiet"])
    assert f"{path}: {note}" in " ".join(res.output.split()), res.output


def test_a_score_without_a_number_and_a_numeric_decision_are_said(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})

    def edit(d: dict) -> None:  # type: ignore[type-arg]
        d["Decision"] = 1
        d["reviews"][0]["Rating"] = [6]

    path = _human(root, edit)
    lay = EvalLayout(root)
    meta = lay.paper_meta("ICLR2024", "p1")
    assert meta["decision"] is None and meta["n_human_ratings"] == 2  # was decision "1"
    assert lay.load_paper("ICLR2024", "p1").decision.raw is None
    assert sorted(n for p, n in lay.skipped if p == str(path)) == [
        "Decision: expected text, got int 1 (not used)",
        "reviews[0].Rating: list [6] has no number (not counted)"]


def test_a_metadata_row_of_the_wrong_type_is_skipped_naming_line_and_field(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    (root / "ICLR2024" / "human_reviews" / "p1.json").unlink()
    meta = root / "ICLR2024" / "paper_metadata.jsonl"
    meta.write_text(json.dumps({"paper_id": "p1", "title": ["x"], "decision": "Accept"}) + "\n")
    lay = EvalLayout(root)
    assert lay.load_paper("ICLR2024", "p1").title != "['x']"
    assert [str(p) for p in lay.problems] == [
        f"{meta} (field 'line 1: title'): expected text, got list; row skipped"]


def test_index_build_says_which_same_id_document_it_left_out(tmp_path: Path) -> None:
    src = tmp_path / "docs.jsonl"
    src.write_text(json.dumps({"id": "a", "title": "Sparse adapters"}) + "\n"
                   + json.dumps({"id": "a", "title": "Dense retrieval at scale"}) + "\n")
    res = runner.invoke(app, ["index", "build", "--out", str(tmp_path / "idx"), "--jsonl", str(src)])
    assert res.exit_code == 0, res.output
    assert "indexed 1 documents" in res.output
    assert ("1 document(s) not indexed: their id belongs to another title" in res.output
            and "id 'a' holds two titles, 'Sparse adapters' and 'Dense retrieval at scale'" in res.output)


def _run(tmp_path: Path) -> Path:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(root), "--out", str(out), "--dimension",
                              "constructiveness", "--quiet"])
    assert (out / "results.jsonl").is_file(), res.output
    return out


def test_report_refuses_a_log_mixing_two_config_hashes(tmp_path: Path) -> None:
    out = _run(tmp_path)
    log = out / "results.jsonl"
    lines = log.read_text().splitlines()
    other = json.loads(lines[-1])
    first_hash, other["config_hash"] = other["config_hash"], "0123456789abcdef"
    other["unit_key"] += "-other"
    log.write_text("\n".join([*lines, json.dumps(other)]) + "\n")
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 2, res.output
    said = " ".join(res.output.split())
    assert (f"{log}: line {len(lines) + 1} is a row of config 0123456789abcdef, line 1 of config "
            f"{first_hash}: the log mixes runs made with other settings") in said, said


def test_compare_runs_refuses_an_unknown_metric_like_compare(tmp_path: Path) -> None:
    out = _run(tmp_path)
    res = runner.invoke(app, ["compare", "--runs", str(out), str(out), "--metric", "bogus"])
    assert res.exit_code == 2, res.output
    assert "unknown metric 'bogus'" in res.output and "mcs" in res.output.lower(), res.output


def test_a_byo_score_that_is_a_list_names_its_row(tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    path = root / "ICLR2024" / "my_reviewer" / "reviews.jsonl"
    row = json.loads(path.read_text().splitlines()[0])
    row["scores"] = {"Rating": [6]}
    path.write_text(json.dumps(row) + "\n")
    lay = EvalLayout(root)
    assert lay.load_reviews("ICLR2024", "p1", "my_reviewer") == []
    assert [str(p) for p in lay.problems] == [
        f"{path} (field 'line 1: scores.Rating'): expected a number or string, got list"]


def test_a_raw_venue_folder_decision_that_is_a_number_is_said(tmp_path: Path) -> None:
    from prism_review.data.venue_folder import VenueFolder

    folder = tmp_path / "ICLR_2024"
    (folder / "json").mkdir(parents=True)
    (folder / "txt").mkdir()
    (folder / "json" / "a.json").write_text(json.dumps(
        {"title": "T", "Decision": 1, "reviews": [{"summary": "A review."}]}))
    (folder / "txt" / "a.txt").write_text("Paper text.")
    with VenueFolder(folder) as vf:
        paper, _ = vf.paper("a")
        assert paper.decision.raw is None  # was "1"
        assert [str(s) for s in vf.skips.skips] == [
            f"{folder}/json/a.json (field 'Decision'): expected text, got int (not used)"]


def test_evaluate_moves_another_runs_rows_aside_instead_of_resuming_them(tmp_path: Path) -> None:
    out = _run(tmp_path)
    log = out / "results.jsonl"
    lines = log.read_text().splitlines()
    other = json.loads(lines[0])
    other.update(config_hash="0123456789abcdef", unit_key=other["unit_key"] + "-other", unit_size=1)
    log.write_text("\n".join([*lines, json.dumps(other)]) + "\n")
    res = runner.invoke(app, ["evaluate", "--data", str(tmp_path / "data"), "--out", str(out),
                              "--dimension", "constructiveness", "--quiet"])
    said = " ".join(res.output.split())
    assert "damaged line moved to results.quarantine.jsonl" in said, said
    assert f"line {len(lines) + 1}: a row of config 0123456789abcdef, not this run's" in said, said
    assert log.read_text().splitlines() == lines
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0


def test_a_human_file_note_is_counted_once_however_often_the_file_is_read(tmp_path: Path) -> None:
    """The paper's text, its metadata and its reviews each read the human file: the note of a
    numeric decision was in ``skipped`` once per read (three times here)."""
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    path = _human(root, lambda d: d.update(Decision=1))
    lay = EvalLayout(root)
    lay.load_paper("ICLR2024", "p1")
    lay.load_reviews("ICLR2024", "p1", "human")
    lay.load_reviews("ICLR2024", "p1", "human")
    notes = [n for p, n in lay.skipped if p == str(path)]
    assert notes.count("Decision: expected text, got int 1 (not used)") == 1, notes
    assert len(notes) == len(set(notes)), notes

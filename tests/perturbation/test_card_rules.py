"""The perturbation benchmark as the hub card defines it: only edits inside review_input count,
rows with fewer than 5 scored edits are left out and counted, detection needs the LLM rating,
and the offline figure is location recall, named as the upper bound it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.perturbation import PerturbationReader, PerturbationRow, load_perturbations
from prism_review.tasks.perturbation import MIN_SCORED_EDITS, score_perturbations
from prism_review.testing.shared import SHARED

DEV = Path(f"{SHARED}/data/perturbation/dev.jsonl")
pytestmark = pytest.mark.skipif(not DEV.is_file(), reason="shared perturbation dev file not present")


@pytest.fixture(scope="module")
def dev() -> tuple[list[PerturbationRow], dict[str, int]]:
    reader = PerturbationReader(DEV)  # rebuilds review_input (13,000 cl100k_base tokens)
    return list(reader), dict(reader.counts)


def _raw_rows(n: int | None = None) -> list[dict[str, Any]]:
    lines = DEV.read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines[:n] if x.strip()]


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def test_dev_scored_field_agrees_with_the_review_input_window(dev) -> None:
    rows, counts = dev
    assert counts["review_input_rebuilt"] == 90
    edits = [p for r in rows for p in r.perturbations]
    assert len(edits) == 1403
    assert sum(bool(p.scored) for p in edits) == 1124
    # the window computed from the text gives the data's field for every edit
    assert all(p.in_window is not None for p in edits)
    assert [p.in_window for p in edits] == [p.scored for p in edits]
    assert counts.get("scored_disagrees_with_window", 0) == 0


def test_without_the_field_only_edits_inside_review_input_are_scored(tmp_path: Path) -> None:
    raw = [r for r in _raw_rows() if 0 < r["n_scored"] < r["n_perturbations"]][:2]
    for r in raw:
        for p in r["perturbations"]:
            del p["scored"]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in raw), encoding="utf-8")
    reader = PerturbationReader(path)
    rows = list(reader)
    assert reader.counts["scored_computed"] == sum(len(r["perturbations"]) for r in raw)
    assert [len(r.scored_perturbations) for r in rows] == [r["n_scored"] for r in raw]


async def test_edits_the_reviewer_never_saw_count_neither_way(dev) -> None:
    rows, _ = dev
    row = next(r for r in rows if len(r.scored_perturbations) >= MIN_SCORED_EDITS
               and len(r.scored_perturbations) < len(r.perturbations))  # fmt: skip
    comments = {row.id: [{"quote": p.perturbed, "explanation": p.why_wrong} for p in row.perturbations]}
    summary, per_row = await score_perturbations([row], comments)
    (res,) = per_row
    outside = {p.perturbation_id for p in row.perturbations if not p.scored}
    assert res["n_scored"] == len(row.perturbations) - len(outside) and res["n_edits"] == len(row.perturbations)
    assert outside.isdisjoint(res["detected"]) and outside.isdisjoint(res["missed"])
    assert summary["n_edits_outside_review_input"] == len(outside)


async def test_rows_with_fewer_than_5_scored_edits_are_left_out_and_counted(dev) -> None:
    rows, _ = dev
    summary, per_row = await score_perturbations(rows, {}, missing="zero")
    few = [r.id for r in rows if len(r.scored_perturbations) < 5]
    assert len(few) == 12
    assert summary["n_rows_too_few_scored"] == 12 and summary["rows_too_few_scored"] == few
    assert summary["n_rows"] == len(per_row) == 78
    assert set(few).isdisjoint(r["id"] for r in per_row)
    assert summary["overall"]["n_scored"] == sum(len(r.scored_perturbations) for r in rows if r.id not in few)


def _oracle(rows: list[PerturbationRow]) -> dict[str, list[dict[str, str]]]:
    """Per row: a comment that quotes each scored edit, half of them with the right reason."""
    out: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        out[r.id] = [{"quote": p.perturbed, "explanation": p.why_wrong if i % 2 else "Looks fine to me."}
                     for i, p in enumerate(r.scored_perturbations)]  # fmt: skip
    return out


async def test_offline_figure_is_location_recall_never_recall(dev) -> None:
    rows, _ = dev
    rows = [r for r in rows if len(r.scored_perturbations) >= MIN_SCORED_EDITS][:4]
    summary, per_row = await score_perturbations(rows, _oracle(rows))
    assert summary["method"] == "location" and summary["figure"] == "location_recall"
    assert summary["upper_bound_of"] == "recall" and summary["threshold"] is None
    assert "recall" not in _keys(summary) | _keys(per_row)
    assert summary["overall"]["location_recall"] == 1.0  # every scored edit is quoted


async def test_llm_recall_needs_the_rating_and_location_recall_bounds_it(dev, llm_server, loopback_judge) -> None:
    rows, _ = dev
    rows = [r for r in rows if len(r.scored_perturbations) >= MIN_SCORED_EDITS][:4]

    def inner(block: str) -> str:  # the fenced text without its fence lines
        return "\n".join(block.strip().splitlines()[1:-1])

    def responder(body: dict) -> dict:  # 5 only for the edit's own reason, 1 otherwise
        head, reviewer = body["messages"][-1]["content"].split("\n\nReviewer's explanation:\n")
        reference = head.split("Reference explanation:\n")[1]
        return {"score": 5 if inner(reviewer) == inner(reference) else 1, "reason": "compared"}

    llm_server.set_responder(responder)
    comments = _oracle(rows)
    llm, _ = await score_perturbations(rows, comments, method="llm", judge=loopback_judge())
    loc, _ = await score_perturbations(rows, comments)
    n = sum(len(r.scored_perturbations) for r in rows)
    right = sum(len(r.scored_perturbations) // 2 for r in rows)  # the odd-numbered comments
    assert llm["figure"] == "recall" and llm["threshold"] == 4
    assert llm["overall"]["n_detected"] == right and llm["overall"]["recall"] == right / n
    assert loc["overall"]["location_recall"] == 1.0 >= llm["overall"]["recall"]


def test_cli_defaults_to_llm_when_a_judge_is_given(tmp_path: Path, llm_server) -> None:
    raw = _raw_rows(1)
    sub = tmp_path / "rows.jsonl"
    sub.write_text(json.dumps(raw[0]) + "\n", encoding="utf-8")
    p = raw[0]["perturbations"][0]
    comments = tmp_path / "c.jsonl"
    comments.write_text(json.dumps({"id": raw[0]["id"], "comments": [
        {"title": "t", "quote": p["perturbed"], "explanation": "wrong sign", "comment_type": "technical"}]}) + "\n")  # fmt: skip
    llm_server.set_responder(lambda body: {"score": 4, "reason": "same error"})
    spec = f"openai-compatible/test-model@{llm_server.base_url}"
    res = CliRunner().invoke(app, ["perturbation", "score", "--rows", str(sub), "--comments", str(comments),
                                   "--judge", spec, "--cache-dir", str(tmp_path / "cache")],
                             env={"OPENAI_API_KEY": "dummy"})  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert out["method"] == "llm" and out["figure"] == "recall" and out["threshold"] == 4
    assert out["n_judge_calls"] >= 1 and out["overall"]["n_detected"] >= 1
    assert len(llm_server.requests) == out["n_judge_calls"]


def test_loading_rows_without_text_leaves_the_window_unknown(tmp_path: Path) -> None:
    raw = _raw_rows(1)
    raw[0]["perturbed_paper"] = ""
    for p in raw[0]["perturbations"]:
        del p["scored"]
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(raw[0]) + "\n", encoding="utf-8")
    (row,) = load_perturbations(path)
    assert row.text_withheld and row.n_unknown_window == len(row.perturbations)
    assert row.scored_perturbations == []  # unknown is not scored, and it is counted

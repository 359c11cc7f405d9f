"""The review / task / perturbation commands through typer's CliRunner (loopback LLM only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.testing.shared import SHARED

runner = CliRunner()
DEV = Path(f"{SHARED}/data/perturbation/dev.jsonl")


def _json(out: str) -> dict:
    return json.loads(out[out.index("{"):])


def test_generate_refuses_offline_judge(mini_layout: Path) -> None:
    res = runner.invoke(app, ["review", "generate", "--data", str(mini_layout), "--system", "g"])
    assert res.exit_code == 2
    assert "no offline judge" in res.output


def test_generate_then_evaluate_scores_with_system(mini_layout: Path, llm_server, review_reply, tmp_path: Path) -> None:
    llm_server.set_responder(lambda body: review_reply)
    spec = f"openai-compatible/test-model@{llm_server.base_url}"
    args = ["review", "generate", "--data", str(mini_layout), "--venue", "ICLR2025", "--system", "gen_cli",
            "--judge", spec, "--cache-dir", str(tmp_path / "cache"), "--audit", str(tmp_path / "audit.jsonl")]
    res = runner.invoke(app, args, env={"OPENAI_API_KEY": "dummy"})
    assert res.exit_code == 0, res.output
    assert "12 written" in res.output
    assert (mini_layout / "ICLR2025" / "gen_cli" / "reviews.jsonl").is_file()
    assert (tmp_path / "audit.jsonl").is_file()
    # prism evaluate picks the generated system up (offline judge, one dimension, two papers),
    # run as the printed hint says (issue 28: every hint is a command that works)
    flat = " ".join(res.output.split())
    hint = flat.split("evaluate them with: prism ", 1)[1].split(" --system ", 1)
    hint_args = hint[0].split() + ["--system", hint[1].split()[0]]
    assert hint_args == ["evaluate", "--data", str(mini_layout), "--system", "gen_cli"], flat
    res = runner.invoke(app, [*hint_args, "--venue", "ICLR2025", "--dimension", "depth", "--limit", "2",
                              "--out", str(tmp_path / "run"), "--quiet", "--no-report"])
    assert res.exit_code == 0, res.output
    assert "| gen_cli |" in (tmp_path / "run" / "summary.md").read_text()  # scored, in Table 1
    # the generated ratings (all 6) as a paper-level predictor of the human mean rating
    res = runner.invoke(app, ["task", "scores", "--data", str(mini_layout), "--venue", "ICLR2025",
                              "--predictor", "system", "--system", "gen_cli", "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "s" / "results.json").read_text())
    assert result["predictor"] == "system" and result["n_unscored"] == 0
    rows = [json.loads(x) for x in (tmp_path / "s" / "predictions.jsonl").read_text().split("\n") if x]
    assert all(r["pred_raw"] == 6 for r in rows)
    mae = sum(abs(r["pred_raw"] - r["true_raw"]) for r in rows) / len(rows)
    assert result["raw_by_venue"]["ICLR2025"]["mae"] == pytest.approx(mae)


def test_acceptance_rating_baseline(mini_layout: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["task", "acceptance", "--data", str(mini_layout), "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "a" / "results.json").read_text())
    assert any("ICML2025" in w for w in result["warnings"])  # skipped: accept-biased
    assert result["excluded"]["pending"] == 1  # a9 is Pending: left out, not a reject
    assert set(result["by_venue"]) == {"ICLR2025"}
    assert result["n_train"] + result["n_test"] == 11  # 12 ICLR papers minus the Pending one
    assert 0.0 <= result["overall"]["accuracy"] <= 1.0 and "threshold" in result


def test_acceptance_refuses_biased_venue(mini_layout: Path) -> None:
    res = runner.invoke(app, ["task", "acceptance", "--data", str(mini_layout), "--venue", "NeurIPS2025"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["task", "acceptance", "--data", str(mini_layout), "--venue", "ICML2025",
                              "--predictor", "majority"])
    assert res.exit_code == 2 and "allow-biased" in res.output


def test_acceptance_llm_predictor(mini_layout: Path, llm_server, tmp_path: Path) -> None:
    llm_server.set_responder(lambda body: {"decision": "Accept", "probability": 0.7, "rationale": "fine"})
    spec = f"openai-compatible/test-model@{llm_server.base_url}"
    res = runner.invoke(app, ["task", "acceptance", "--data", str(mini_layout), "--predictor", "llm",
                              "--judge", spec, "--with-reviews", "--split", "all", "--cache-dir", str(tmp_path / "c")],
                        env={"OPENAI_API_KEY": "dummy"})
    assert res.exit_code == 0, res.output
    result = _json(res.stdout)
    assert result["split"] == "all" and result["n_test"] == 11  # every decided ICLR paper
    o = result["overall"]
    assert o["predicted_accept_rate"] == 1.0 and o["roc_auc"] == 0.5
    assert o["accuracy"] == pytest.approx(o["accept_rate"])
    assert "=== Review 1 ===" in llm_server.requests[0].body["messages"][-1]["content"]


@pytest.mark.skipif(not DEV.is_file(), reason="shared perturbation dev file not present")
def test_perturbation_score_cli(tmp_path: Path) -> None:
    rows = [json.loads(x) for x in DEV.read_text(encoding="utf-8").split("\n")[:2] if x.strip()]
    sub = tmp_path / "rows.jsonl"
    sub.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    p = rows[0]["perturbations"][0]
    comments = tmp_path / "c.jsonl"
    comments.write_text(json.dumps({"arxiv_id": rows[0]["arxiv_id"], "error_type": rows[0]["error_type"],
                                    "comments": [{"title": "t", "quote": p["perturbed"], "explanation": p["why_wrong"],
                                                  "comment_type": "technical"}]}) + "\n")
    res = runner.invoke(app, ["perturbation", "score", "--rows", str(sub), "--comments", str(comments)])
    assert res.exit_code == 0, res.output
    result = _json(res.stdout)
    # no judge: the quote condition alone, named as the upper bound it is
    assert result["method"] == "location" and result["figure"] == "location_recall"
    assert result["threshold"] is None and result["upper_bound_of"] == "recall"
    assert result["n_rows"] == 1 and result["n_rows_missing_comments"] == 1
    # the quoted equation also covers a second, short edit: 2 locations, which only the
    # explanation check (llm) could tell apart
    assert result["overall"]["n_detected"] == 2 and result["n_comment_lines_unreadable"] == 0
    assert result["overall"]["location_recall"] == 2 / 11 and "recall" not in result["overall"]
    # an unreadable line (here: a torn write) is named and counted, the readable entries still score
    with comments.open("a") as fh:
        fh.write('{"arxiv_id": "x", "error_type": "surf\n')
    res = runner.invoke(app, ["perturbation", "score", "--rows", str(sub), "--comments", str(comments)])
    assert res.exit_code == 0, res.output
    assert _json(res.stdout)["n_comment_lines_unreadable"] == 1 and _json(res.stdout)["overall"]["n_detected"] == 2
    assert "c.jsonl [line 2]: invalid JSON" in res.stderr.replace("\n", "")
    res = runner.invoke(app, ["perturbation", "score", "--rows", str(sub), "--comments", str(comments),
                              "--method", "llm"])
    assert res.exit_code == 2 and "needs an LLM" in res.output


def test_meta_reviews_as_acceptance_predictions(mini_layout: Path, llm_server, tmp_path: Path) -> None:
    def responder(body: dict) -> dict:
        strong = "Rating: 8" in body["messages"][-1]["content"]
        return {"metareview": "Synthesis.", "recommendation": "accept" if strong else "reject",
                "confidence": 0.9 if strong else 0.1}

    llm_server.set_responder(responder)
    spec = f"openai-compatible/test-model@{llm_server.base_url}"
    meta = tmp_path / "meta.jsonl"
    res = runner.invoke(app, ["review", "meta", "--data", str(mini_layout), "--venue", "ICLR2025", "--out", str(meta),
                              "--judge", spec, "--cache-dir", str(tmp_path / "c")], env={"OPENAI_API_KEY": "dummy"})
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["task", "acceptance", "--data", str(mini_layout), "--predictor", "file",
                              "--predictions", str(meta), "--split", "all"])
    assert res.exit_code == 0, res.output
    o = _json(res.stdout)["overall"]
    # accept predicted where some human rated 8: a1, a2, a5, a11 (all accepted); a7 (6, 6) missed
    assert (o["tp"], o["fn"], o["tn"], o["fp"]) == (4, 1, 6, 0)
    assert o["accuracy"] == pytest.approx(10 / 11)
    assert o["balanced_accuracy"] == pytest.approx((4 / 5 + 1) / 2)
    assert o["roc_auc"] == pytest.approx(27 / 30)  # a7's 0.1 ties the six rejects
    assert _json(res.stdout)["n_prediction_lines_unreadable"] == 0
    # a corrupted line loses that paper's prediction: named on stderr and counted, not silent
    lines = meta.read_text().split("\n")
    meta.write_text("\n".join([lines[0][:-5], *lines[1:]]))
    res = runner.invoke(app, ["task", "acceptance", "--data", str(mini_layout), "--predictor", "file",
                              "--predictions", str(meta), "--split", "all"])
    assert res.exit_code == 0, res.output
    assert _json(res.stdout)["n_prediction_lines_unreadable"] == 1
    assert "meta.jsonl [line 1]: invalid JSON" in res.stderr.replace("\n", "")


def _corpus_table(tmp_path: Path) -> Path:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "data"))
    from data_shapes import corpus_row, write_corpus

    rows = [corpus_row(f"c{i}", "ICLR_2024", "Accept (poster)" if i % 2 else "Reject") for i in range(12)]
    return write_corpus(tmp_path / "papers.parquet", rows)


def test_tasks_read_the_corpus_table(tmp_path: Path) -> None:
    data = _corpus_table(tmp_path)
    res = runner.invoke(app, ["task", "acceptance", "--data", str(data), "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "a" / "predictions.jsonl").read_text().split("\n") if x]
    from prism_review.tasks.sources import hash_split

    test_ids = sorted(f"c{i}" for i in range(12) if hash_split(f"c{i}", 0.5) == "test")
    assert test_ids and sorted(r["paper_id"] for r in rows) == test_ids


def test_generate_from_corpus_table_writes_a_layout_first(llm_server, review_reply, tmp_path: Path) -> None:
    data = _corpus_table(tmp_path)
    res = runner.invoke(app, ["review", "generate", "--data", str(data), "--system", "g",
                              "--judge", f"openai-compatible/m@{llm_server.base_url}"], env={"OPENAI_API_KEY": "x"})
    assert res.exit_code == 2 and "--layout-out" in res.output
    llm_server.set_responder(lambda body: review_reply)
    out = tmp_path / "layout"
    res = runner.invoke(app, ["review", "generate", "--data", str(data), "--system", "gen", "--limit", "2",
                              "--layout-out", str(out), "--judge", f"openai-compatible/m@{llm_server.base_url}",
                              "--cache-dir", str(tmp_path / "cache")], env={"OPENAI_API_KEY": "x"})
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (out / "ICLR2024" / "papers").iterdir()) == ["c0.txt", "c1.txt"]
    rows = (out / "ICLR2024" / "gen" / "reviews.jsonl").read_text().splitlines()
    assert len(rows) == 2

"""issue 27: every judge has a card. ``prism agreement --judge J`` records what it measured in
J's card; ``prism evaluate --judge J`` prints, under Table 1, each column's class from it, or says
J is unmeasured with the exact command that measures it (terminal, summary.md, report.html and
manifest.json). Through the CLI, the real openai SDK and the loopback LLM server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.report.judge_card import card_file


def _responder(body: dict[str, Any]) -> str:
    """One ARC whose D1-D4 follow the 'level N' the point states (so the judge ranks points)."""
    text = body["messages"][-1]["content"]
    m = re.search(r"level (\d)", text)
    lvl = int(m.group(1)) if m else 1
    d = min(2, (lvl - 1) // 2)
    return json.dumps({"atomic_comments": [{
        "arc_id": "ARC_10", "section": "Weaknesses", "comment_type": "weakness", "content": "A point.",
        "anchor_quote": f"level {lvl}", "D1_actionability": d, "D2_specificity": d, "D3_justification": d,
        "D4_solution": d, "D5_tone": 1}]})


def _revutil(path: Path) -> Path:
    rows = []
    for i in range(12):
        lvl = 1 + i % 5
        rows.append({"id": f"r{i}", "paper_id": f"p{i % 4}",
                     "review_point": f"Point {i} at level {lvl}: the ablation in Table {i} is missing.",
                     "labels": {"actionability": {"majority": lvl}, "grounding_specificity": {"majority": lvl},
                                "verifiability": {"majority": lvl}, "helpfulness": {"majority": lvl},
                                "professional_tone": {"majority": 1}}})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _evaluate(judge: str, out: Path) -> Any:
    return CliRunner().invoke(app, ["evaluate", "--judge", judge, "--dimension", "constructiveness",
                                    "--system", "gpt4", "--limit", "2", "--out", str(out), "--quiet"])


def test_unmeasured_judge_then_agreement_records_its_card(llm_server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    llm_server.set_responder(_responder)
    judge = f"openai-compatible/test-model@{llm_server.base_url}"
    res = _evaluate(judge, tmp_path / "run")
    assert res.exit_code == 0, res.output
    # never measured: says so, with the exact command that measures the column
    assert f"Judge {judge} is unmeasured" in res.output
    cmd = f"prism agreement --judge {judge} --dataset revutil --file "
    assert f"- MCS: unmeasured for {judge}; measure it with `{cmd}" in res.output
    md = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    assert f"Judge {judge} is unmeasured" in md and cmd in md
    assert "is unmeasured" in (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())["judge_card"]
    assert man["judge"] == judge and man["card"] is None
    assert man["columns"]["constructiveness.mcs"]["class"] == "unmeasured"
    assert man["columns"]["constructiveness.mcs"]["command"].startswith(cmd)

    labels = _revutil(tmp_path / "revutil.jsonl")
    res = CliRunner().invoke(app, ["agreement", "--judge", judge, "--dataset", "revutil", "--file", str(labels),
                                   "--json"])
    assert res.exit_code == 0, res.output
    path = card_file(judge)
    assert path.is_file() and str(path) in res.output
    card = json.loads(path.read_text())
    m = next(x for x in card["measurements"] if x["metric"] == "revutil.helpfulness.spearman_clc")
    measured = json.loads(next(ln for ln in res.output.splitlines() if ln.startswith("{")))
    assert m["figure"] == measured["revutil.helpfulness.spearman_clc"] and m["figure"] > 0.5
    assert m["task"] == "revutil" and m["n"] == 12 and m["file"] == str(labels)
    import hashlib

    assert m["sha256"] == hashlib.sha256(labels.read_bytes()).hexdigest()
    assert m["date"] and m["prompt_version"] not in ("", "unknown") and m["protocol"]
    mcs = next(e for e in card["entries"] if e["metric"] == "mcs")
    assert mcs["class"] == "ranking_only"

    # the next run (a re-render reads the same card) prints the measured class and figure
    res = CliRunner().invoke(app, ["report", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    assert f"Judge {judge}: how far each Table-1 column can be trusted" in md
    assert "MCS†: ranking only" in md and "Spearman of the comment's CLC vs RevUtil helpfulness" in md
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())["judge_card"]
    assert man["columns"]["constructiveness.mcs"]["class"] == "ranking_only" and man["card"] == str(path)


def _measure_into_own_card(llm_server: Any, tmp_path: Path, monkeypatch: Any) -> tuple[str, Path]:
    """``prism agreement --judge J --dataset revutil --card PATH``: (J, PATH), the card written
    there and not into the cache folder."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    llm_server.set_responder(_responder)
    judge = f"openai-compatible/test-model@{llm_server.base_url}"
    mine = tmp_path / "cards" / "j.json"
    res = CliRunner().invoke(app, ["agreement", "--judge", judge, "--dataset", "revutil", "--file",
                                   str(_revutil(tmp_path / "rv.jsonl")), "--card", str(mine)])
    assert res.exit_code == 0, res.output
    assert mine.is_file() and not card_file(judge).exists()
    return judge, mine


def test_agreement_card_path_option_and_unmeasurable_columns(llm_server, tmp_path, monkeypatch) -> None:
    judge, mine = _measure_into_own_card(llm_server, tmp_path, monkeypatch)
    from prism_review.dimensions.base import get_dimension
    from prism_review.report.judge_card import judge_note

    note = judge_note({"judge": {"judge": "openai"}, "judge_spec": judge}, [get_dimension("novelty")])
    assert any("NS: unmeasured; no agreement task measures it" in ln for ln in note)


def test_compare_reads_an_llm_judges_card_and_makes_no_finding_where_it_says_so(tmp_path) -> None:
    from tests.stats.test_compare_cli import _write_log

    _write_log(tmp_path / "results.jsonl")  # sea's mcs is higher on all 12 papers: a finding if trusted
    args = ["compare", "--a", "sea", "--b", "human", "--run", str(tmp_path), "--n-bootstrap", "200"]
    runner = CliRunner()
    res = runner.invoke(app, args)  # no manifest: the judge is unknown, nothing vouches for a column
    assert res.exit_code == 0 and "no manifest.json beside the results" in res.output
    assert "sea better: mcs" in res.output
    (tmp_path / "manifest.json").write_text(json.dumps({"judge": {"judge": "openai"}, "judge_spec": "openai/x"}))
    res = runner.invoke(app, args)
    assert res.output.startswith("judge openai/x · card: none (unmeasured; measure it with `prism agreement")
    path = card_file("openai/x")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"judge": "openai/x", "entries": [
        {"dimension": "constructiveness", "metric": "mcs", "label": "MCS", "class": "not_informative",
         "figure": "Spearman 0.01 vs baseline 0.30 (n 12)", "command": "prism agreement ...",
         "status": "measured", "owner": "prism agreement"}]}))
    res = runner.invoke(app, args)
    assert "sea better: -" in res.output
    assert "no finding on mcs: the openai/x judge's card calls them not informative" in res.output
    out = json.loads(runner.invoke(app, [*args, "--json"]).output)["dimensions"]["constructiveness"]
    assert out["per_metric"]["mcs"]["card_class"] == "not_informative"
    assert out["per_metric"]["mcs"]["significant_after_correction"] is False
    assert out["per_metric"]["mcs"]["significant_raw"] is True


def test_agreement_all_with_an_llm_judge_prints_that_judges_card(llm_server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    llm_server.set_responder(_responder)
    judge = f"openai-compatible/test-model@{llm_server.base_url}"
    (tmp_path / "labels" / "revutil").mkdir(parents=True)
    _revutil(tmp_path / "labels" / "revutil" / "dev.jsonl")
    res = CliRunner().invoke(app, ["agreement", "--dataset", "all", "--judge", judge, "--file", str(tmp_path)])
    assert res.exit_code == 1  # the other standard files are missing
    assert f"Judge card of the {judge} judge ({card_file(judge)})" in res.stdout
    assert "constructiveness.mcs (MCS): ranking_only" in res.stdout
    assert "Fidelity card of the offline judge" not in res.stdout and "== In-sample" not in res.stdout


def test_a_card_kept_outside_the_cache_is_used_by_evaluate_and_report(llm_server, tmp_path, monkeypatch) -> None:
    """``prism evaluate --card PATH`` and ``prism report --card PATH``: a card that ``prism agreement
    --card PATH`` wrote outside the cache folder vouches for Table 1, summary.md, report.html and
    the manifest, and the run folder remembers it for later re-renders."""
    judge, mine = _measure_into_own_card(llm_server, tmp_path, monkeypatch)
    measured = f"Judge {judge}: how far each Table-1 column can be trusted (judge card {mine})"

    def check(run: Path) -> None:
        md = (run / "summary.md").read_text(encoding="utf-8")
        assert measured in md and "MCS†: ranking only" in md
        assert "MCS†: ranking only" in (run / "report.html").read_text(encoding="utf-8")
        man = json.loads((run / "manifest.json").read_text())
        assert man["judge_card"]["card"] == str(mine) and man["card_file"] == str(mine)
        assert man["judge_card"]["columns"]["constructiveness.mcs"]["class"] == "ranking_only"

    res = CliRunner().invoke(app, ["evaluate", "--judge", judge, "--dimension", "constructiveness", "--system",
                                   "gpt4", "--limit", "2", "--out", str(tmp_path / "a"), "--quiet", "--card", str(mine)])
    assert res.exit_code == 0, res.output
    assert measured in res.output and "MCS†: ranking only" in res.output
    check(tmp_path / "a")
    res = CliRunner().invoke(app, ["report", str(tmp_path / "a")])  # the folder remembers its card
    assert res.exit_code == 0 and measured in res.output, res.output
    check(tmp_path / "a")

    res = _evaluate(judge, tmp_path / "b")  # no --card: the card outside the cache is not found
    assert res.exit_code == 0 and f"Judge {judge} is unmeasured" in res.output, res.output
    res = CliRunner().invoke(app, ["report", str(tmp_path / "b"), "--card", str(mine)])
    assert res.exit_code == 0 and measured in res.output, res.output
    check(tmp_path / "b")

    for cmd in (["evaluate", "--judge", judge, "--out", str(tmp_path / "c")], ["report", str(tmp_path / "b")]):
        res = CliRunner().invoke(app, [*cmd, "--card", str(tmp_path / "none.json")])
        assert res.exit_code == 2 and "none.json" in res.output and not (tmp_path / "c").exists(), res.output


def test_a_report_reads_its_judge_card_once(tmp_path, monkeypatch) -> None:
    """One ``prism report`` read the run judge's card file eight times (the manifest's record, the
    note, the legend, every table's markers, the comparisons), each a chance to see another
    version of a card that ``prism agreement`` rewrites meanwhile; it is read once per version."""
    from tests.stats.test_compare_cli import _write_log

    _write_log(tmp_path / "results.jsonl")
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"judge": "openai/x", "entries": [
        {"dimension": "constructiveness", "metric": "mcs", "label": "MCS", "class": "not_informative",
         "figure": "Spearman 0.01 vs baseline 0.30 (n 12)", "command": "prism agreement ...",
         "status": "measured", "owner": "prism agreement"}]}))
    (tmp_path / "manifest.json").write_text(json.dumps({"judge": {"judge": "openai"}, "judge_spec": "openai/x"}))
    reads: list[Path] = []
    real = Path.read_text

    def counting(self: Path, *a: object, **k: object) -> str:
        if self.name == card.name:
            reads.append(self)
        return real(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counting)
    res = CliRunner().invoke(app, ["report", str(tmp_path), "--card", str(card)])
    assert res.exit_code == 0, res.output
    assert "MCS‡: not informative offline" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert len(reads) == 1, reads
    card.write_text(card.read_text().replace("not_informative", "ranking_only"))  # a new version
    reads.clear()
    res = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "MCS†: ranking only" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert len(reads) == 1, reads

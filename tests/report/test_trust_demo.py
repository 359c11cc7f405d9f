"""On the offline demo, through the CLI: ``prism compare`` and the report test the same Holm
families (one pair × one dimension), so the same pair has the same adjusted p in both."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.report.demo_run import compare_json, demo_run, html_tables


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_run(tmp_path_factory.mktemp("demo") / "run")


def _report_comparisons(run: Path) -> dict[tuple[str, str, str], str]:
    for head, body in html_tables((run / "report.html").read_text(encoding="utf-8")):
        if "Dimension" in head and "p (Holm)" in head:
            i = head.index("p (Holm)")
            return {(r[0], r[1], r[2]): r[i] for r in body}
    raise AssertionError("no comparison table in report.html")


def test_compare_and_report_give_the_same_adjusted_p_for_the_same_pair(run: Path) -> None:
    report = _report_comparisons(run)
    result = compare_json(run, "gpt4", "human")
    from prism_review.dimensions.base import get_dimension

    checked = 0
    for dim, res in result["dimensions"].items():
        labels = {s.key: s.label for s in get_dimension(dim).metrics}
        for m in res["metrics"]:
            r = res["per_metric"][m]
            cell = report[("gpt4", dim, labels.get(m, m))]
            if r.get("skipped"):
                assert "not tested" in cell
                continue
            assert float(cell.rstrip(" *")) == pytest.approx(r["adjusted_p"], abs=5e-5), (dim, m)
            checked += 1
    assert checked >= 20  # every dimension's family, not one metric
    # the figure: gpt4 critical recall had 0.0229 in compare and 0.0344 in the report
    assert result["dimensions"]["flaws"]["family"]["metrics"][0] == "critical_recall"


def test_metric_narrows_the_family_and_says_so(run: Path) -> None:
    full = compare_json(run, "gpt4", "human", "--dimension", "constructiveness")
    one = compare_json(run, "gpt4", "human", "--dimension", "constructiveness", "--metric", "mcs")
    fam = one["dimensions"]["constructiveness"]["family"]
    assert fam["narrowed"] and fam["metrics"] == ["mcs"]
    assert not full["dimensions"]["constructiveness"]["family"]["narrowed"]


def test_compare_makes_no_finding_on_columns_the_card_calls_not_informative(run: Path) -> None:
    result = compare_json(run, "gpt4", "human")
    assert result["judge"] == "offline" and result["judge_card"]
    flaws = result["dimensions"]["flaws"]
    # the issue: "human better: critical_recall, minor_recall, hallucination_rate" with Holm stars
    for m in ("critical_recall", "minor_recall", "hallucination_rate", "ncps"):
        r = flaws["per_metric"][m]
        assert r["card_class"] == "not_informative"
        assert r["significant_after_correction"] is False
        assert "bootstrap_95ci" in r and r["mean_diff"] is not None  # the difference and CI stay
        assert m in flaws["summary"]["no_finding"]
    assert flaws["per_metric"]["critical_recall"]["significant_raw"] is True  # it would have been a star
    better = set(flaws["summary"]["a_better"]) | set(flaws["summary"]["b_better"])
    assert not better & set(flaws["summary"]["no_finding"])
    # every metric names its class; a column the card does not list is "unmeasured"
    for res in result["dimensions"].values():
        assert all("card_class" in r for r in res["per_metric"].values())
    assert result["dimensions"]["depth"]["per_metric"]["n_units"]["card_class"] == "unmeasured"


def test_compare_text_names_the_judge_and_each_columns_class(run: Path) -> None:
    from typer.testing import CliRunner

    from prism_review.cli import app

    res = CliRunner().invoke(app, ["compare", "--run", str(run), "--a", "gpt4", "--b", "human",
                                   "--dimension", "flaws", "--n-bootstrap", "200"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("judge offline")
    line = next(ln for ln in res.output.splitlines() if ln.startswith("critical_recall "))
    assert "*" not in line and line.rstrip().endswith("not informative")
    assert "no finding on critical_recall, minor_recall, ncps, hallucination_rate" in res.output
    better = next(ln for ln in res.output.splitlines() if " better: " in ln)
    assert "critical_recall" not in better and "hallucination_rate" not in better


def test_report_comparisons_carry_the_card_class_and_no_star_on_not_informative(run: Path) -> None:
    page = (run / "report.html").read_text(encoding="utf-8")
    tables = [(h, b) for h, b in html_tables(page) if "Dimension" in h and "Card" in h]
    assert tables, "no comparison table with a Card column"
    head, body = tables[0]
    p, card = head.index("p (Holm)"), head.index("Card")
    flagged = [r for r in body if r[card] == "not informative"]
    assert flagged and all("*" not in r[p] for r in flagged)
    assert any("*" in r[p] for r in body if r[card] != "not informative")
    assert "no finding on" in page and "card calls them not informative" in page


def _table1_md(text: str) -> tuple[list[str], list[list[str]]]:
    block = text.split("## Table 1", 1)[1] if "## Table 1" in text else text.split("Table 1", 1)[1]
    lines = [ln for ln in block.splitlines() if ln.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    body = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[1:] if not ln.startswith("|---")]
    return head, body


def test_table1_cells_carry_their_card_class_with_a_legend(run: Path) -> None:
    terminal = (run.parent / "evaluate_output.txt").read_text(encoding="utf-8")
    summary = (run / "summary.md").read_text(encoding="utf-8")
    for text in (terminal, summary):
        head, body = _table1_md(text)
        human = next(r for r in body if r[0] == "human")
        assert human[head.index("DoA")].endswith("†")  # ranking only
        for col in ("NS", "Critical recall", "nCPS"):
            assert human[head.index(col)].endswith("‡")  # not informative
        assert "Cell markers (the judge's card): † ranking only · ‡ not informative" in text
        assert "- DoA†: ranking only" in text
    # the report greys those cells (and the human-only-bank "–" carries no marker)
    page = (run / "report.html").read_text(encoding="utf-8")
    t1 = page.split("<table>", 1)[1].split("</table>", 1)[0]
    assert t1.count('class="card-weak"') >= 8 * 4 and '<td class="card-weak">–' not in t1
    assert "‡" in t1 and "td.card-weak" in page


def test_shipped_card_figures_are_recomputed_by_the_code_that_measures_them(run: Path) -> None:
    """issue 27: the card's figures are built, not typed (the novelty line had drifted to an older
    demo's "36 of 61, r 0.55"). Here the demo, training-report and DISAPERE-novelty figures are
    recomputed; the full check (with the SubstanReview dev slice, DISAPERE and the flaws grouped
    CV, about a minute) is `python -m prism_review.report.card_build --check`."""
    import json

    from prism_review.report import card_build
    from prism_review.report.fidelity import card_path
    from prism_review.testing.shared import DATA

    card = json.loads(card_path().read_text(encoding="utf-8"))
    typed = {f"{e['dimension']}.{e['metric']}" for e in card["entries"] if "figure_template" not in e}
    assert typed == {"novelty.ssr"}  # SSR's entry quotes no measured figure
    only = ["demo", "rc"] + (["dn"] if (DATA / "labels/disapere/dev.jsonl").is_file() else [])
    # the grounding CV (S_depth, and DoA's line): ~25 s, a refit in a temporary folder
    only += ["gr"] if (DATA / "labels/revutil/dev.jsonl").is_file() else []
    values = card_build.compute(card_build.needed(card, only), demo_run=run)
    checked = [e for e in card["entries"] if e.get("figure_template")
               and all(f.split("_", 1)[0] in only for f in card_build.fields(e["figure_template"]))]
    assert len(checked) >= 8
    assert card_build.build(card, values, only) == []  # every recomputed figure is the shipped one
    sr = next(e for e in card["entries"] if e["metric"] == "sr")
    assert f"in {values['demo_sr_equal']} of {values['demo_sr_reviews']} reviews" in sr["figure"]


def test_card_build_check_fails_on_a_drifted_figure(run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from prism_review.report import card_build, fidelity

    card = json.loads(fidelity.card_path().read_text(encoding="utf-8"))
    sr = next(e for e in card["entries"] if e["metric"] == "sr")
    sr["figure"] = sr["figure"].replace(" of ", " of 1", 1)  # a typed figure that no longer holds
    drifted = tmp_path / "card.json"
    drifted.write_text(json.dumps(card), encoding="utf-8")
    monkeypatch.setattr(fidelity, "card_path", lambda: drifted)
    assert card_build.main(["--check", "--demo-run", str(run), "--only", "demo"]) == 1
    assert card_build.main(["--write", "--demo-run", str(run), "--only", "demo"]) == 0
    assert card_build.main(["--check", "--demo-run", str(run), "--only", "demo"]) == 0


def test_manifest_records_the_card_class_of_every_table1_column(run: Path) -> None:
    import json

    man = json.loads((run / "manifest.json").read_text(encoding="utf-8"))["judge_card"]
    assert man["judge"] == "offline" and man["card"] == "shipped fidelity card"
    cols = man["columns"]
    assert set(cols) == {"depth.doa", "novelty.ns", "novelty.sr", "novelty.ssr", "flaws.critical_recall",
                         "flaws.minor_recall", "flaws.ncps", "constructiveness.mcs"}
    assert cols["flaws.critical_recall"]["class"] == "not_informative"
    assert cols["depth.doa"]["class"] == "ranking_only" and cols["depth.doa"]["figure"]


def test_compare_runs_names_each_runs_card_class_per_metric(run: Path) -> None:
    import json

    from typer.testing import CliRunner

    from prism_review.cli import app

    args = ["compare", "--runs", str(run), str(run), "--dimension", "flaws", "--n-bootstrap", "100"]
    out = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)["dimensions"]["flaws"]["metrics"]
    assert out["critical_recall"]["card_class"] == {"a": "not_informative", "b": "not_informative"}
    text = CliRunner().invoke(app, args).output
    assert "(judge offline, protocol economical)" in text and "| not informative / not informative |" in text

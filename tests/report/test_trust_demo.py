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

"""Unknown names on ``prism evaluate`` end with exit 2 and the valid names, closest first;
``--limit`` counts papers that have a review by a selected system."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.names import UnknownNameError, closest_first
from prism_review.pipelines.results import read_results


def test_closest_first_orders_by_similarity() -> None:
    assert closest_first("gtp4", ["human", "claude_opus", "gpt4", "gemini_pro_1.5"])[0] == "gpt4"
    assert closest_first("Dept", ["novelty", "depth", "flaws"])[0] == "depth"
    err = UnknownNameError("venue", "ICLR2025", ["ICLR2024"], where="DATA")
    assert str(err) == "unknown venue 'ICLR2025' in DATA; valid venues (closest first): ICLR2024"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--venue", "ICLR2025"], "unknown venue 'ICLR2025'"),  # a PRISM venue the data lacks
        (["--venue", "iclr2042"], "valid venues (closest first): ICLR2024"),
        (["--system", "gtp4"], "valid systems (closest first): gpt4, "),
        (["--system", "gpt4", "--system", "sea"], "unknown system 'sea'"),
        (["--dimension", "dept"], "valid dimensions (closest first): depth, "),
        (["--human-aggregation", "panel"], "(closest first): panel_concat, per_review_mean"),
    ],
)
def test_unknown_names_exit_2_listing_valid_names(tmp_path, args, expected) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", *args, "--out", str(out), "--quiet"])
    assert res.exit_code == 2, res.output
    assert expected in " ".join(res.output.split())
    assert "Traceback" not in res.output
    assert not (out / "results.jsonl").exists()


def test_system_names_are_case_insensitive_and_limit_counts_before_the_system_filter(
    tmp_path,
) -> None:
    # --limit 2 takes the demo's first two papers; the first (NExT-GPT) has no gpt4 review
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        ["evaluate", "--system", "GPT4", "--dimension", "depth", "--limit", "2", "--out", str(out),
         "--quiet", "--no-report"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = read_results(out)
    assert {r.system for r in rows} == {"gpt4"}
    assert {r.paper_id for r in rows} == {"capturing-structural-locality-in-non-parametric"}

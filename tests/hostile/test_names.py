"""Reserved names (issue 26, kind 1): a name that becomes a system id, a Table 1 row or a file is
refused with the reason wherever it comes from (a bring-your-own folder, a plug-in, the system
``prism review generate`` writes to)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.layout import EvalLayout
from prism_review.dimensions.flaws import HUMAN_ONLY_GROUP, PANEL_GROUP_SUFFIX
from prism_review.names import HUMAN_ONLY_ROW, PANEL_SUFFIX, reserved_name_problem
from prism_review.reviewers.generate import generated_system
from prism_review.systems.registry import register_system, systems
from prism_review.systems.spec import SystemSpec
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()
REFUSED = {
    "human-only-bank": "Table 1's row of the human reviews scored on the human-only bank",
    "Human-Only-Bank": "Table 1's row of the human reviews scored on the human-only bank",
    "sea@panel": "'@' is reserved",
    "results.jsonl": "the name of a file or folder the project reads or writes",
    "paper_ids_200_x.txt": "the name of a file or folder the project reads or writes",
}


def test_the_names_are_the_ones_table_1_uses() -> None:
    assert HUMAN_ONLY_ROW == HUMAN_ONLY_GROUP and PANEL_SUFFIX == PANEL_GROUP_SUFFIX
    for spec in systems():  # every built-in name passes
        assert {reserved_name_problem(n) for n in (spec.id, spec.folder, spec.label)} == {None}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_byo_folder_with_a_reserved_name_is_refused_with_the_reason(name: str, tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    vdir = root / "ICLR2024"
    shutil.copytree(vdir / "my_reviewer", vdir / name)
    lay = EvalLayout(root)
    assert name not in lay.systems("ICLR2024")
    assert "my_reviewer" in lay.systems("ICLR2024")
    notes = [str(p) for p in lay.problems]
    assert any(name in n and REFUSED[name] in n for n in notes), notes
    res = runner.invoke(app, ["data", "validate", "--partial", str(root)])
    assert res.exit_code == 1, res.output
    assert REFUSED[name] in " ".join(res.output.split()), res.output


@pytest.mark.parametrize("name", ["human", "Human", "SEA", "TreeReview"])
def test_byo_folder_named_like_a_builtin_system_is_refused(name: str, tmp_path: Path) -> None:
    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]}, byo=None)
    vdir = root / "ICLR2024"
    (vdir / "x").mkdir()
    (vdir / "x" / "reviews.jsonl").write_text('{"paper_id": "p1", "text": "## Weaknesses\\nweak"}\n')
    if (vdir / name).exists():
        shutil.rmtree(vdir / name)
    (vdir / "x").rename(vdir / name)
    lay = EvalLayout(root)
    lay.systems("ICLR2024")
    assert any("may not reuse a built-in system name" in str(p) for p in lay.problems), lay.problems


@pytest.mark.parametrize("name", sorted(REFUSED) + [".hidden", " sea2", "a\\b"])
def test_plugin_and_generated_system_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="refused"):
        register_system(SystemSpec(id=name, store=lambda *a: None))  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match="cannot be a generated system's folder name"):
        generated_system(name)

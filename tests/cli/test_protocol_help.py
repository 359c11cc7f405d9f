"""``prism evaluate --help`` says that ``--protocol reference`` reproduces the reference's call
pattern, not its prompts (issue 30)."""

from __future__ import annotations

from typer.testing import CliRunner

from prism_review.cli import app


def test_protocol_help_names_the_call_pattern() -> None:
    res = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.replace("│", " ").split())
    assert "reproduces the reference's call pattern" in flat

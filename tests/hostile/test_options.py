"""Option, environment and config values (issue 26, kind 4): checked up front against one table
of ranges (``llm.settings.RANGES``), exit 2 naming the option, variable or file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.llm.errors import ConfigError
from prism_review.llm.settings import Settings
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()


@pytest.mark.parametrize(("opt", "said"), [
    (["--concurrency", "0"], "concurrency=0 must be >= 1"),
    (["--concurrency", "-2"], "concurrency=-2 must be >= 1"),
    (["--rpm", "-1"], "rpm=-1 must be >= 0"),
    (["--tpm", "-5"], "tpm=-5 must be >= 0"),
    (["--max-errors", "-1"], "max_errors=-1 must be >= 0"),
])
def test_evaluate_refuses_a_bad_option_before_running(opt: list[str], said: str, tmp_path: Path) -> None:
    data = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(data), "--out", str(out), "--dimension",
                              "constructiveness", "--limit", "1", *opt])
    assert res.exit_code == 2, res.output
    assert f"Invalid value for '{opt[0]}'" in res.output and said in res.output
    assert not (out / "results.jsonl").exists()


@pytest.mark.parametrize(("env", "said"), [
    ({"PRISM_TIMEOUT": "-1"}, "environment variable PRISM_TIMEOUT: timeout=-1.0 must be > 0"),
    ({"PRISM_RPM_LIMIT": "-3"}, "environment variable PRISM_RPM_LIMIT: rpm=-3.0 must be >= 0"),
    ({"PRISM_CONCURRENCY": "0"}, "environment variable PRISM_CONCURRENCY: concurrency=0 must be >= 1"),
    ({"PRISM_TEMPERATURE": "nan"}, "PRISM_TEMPERATURE: temperature=nan is not a finite number"),
])
def test_environment_values_are_checked_naming_the_variable(env: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError) as exc:
        Settings(env=env)
    assert str(exc.value) == said or said in str(exc.value)


def test_bad_config_file_names_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "judge.toml"
    cfg.write_text("[llm]\ntimeout = 0\n")
    with pytest.raises(ConfigError, match=f"config file {cfg}: timeout=0.0 must be > 0"):
        Settings(env={}, config_path=cfg)
    bad = tmp_path / "judge.yaml"
    bad.write_bytes(b"\xff\xfe: x")
    with pytest.raises(ConfigError, match=f"cannot read config file {bad}"):
        Settings(env={}, config_path=bad)
    res = runner.invoke(app, ["evaluate", "--judge", "openai-compatible/m@http://127.0.0.1:9/v1",
                              "--config", str(cfg), "--limit", "1", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and str(cfg) in " ".join(res.output.split()), res.output


def test_agreement_concurrency_zero_is_exit_2() -> None:
    res = runner.invoke(app, ["agreement", "--dataset", "revutil", "--concurrency", "0"])
    assert res.exit_code == 2 and "concurrency=0 must be >= 1" in res.output, res.output


def test_compare_refuses_zero_bootstrap_and_an_unknown_metric(tmp_path: Path) -> None:
    data = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    out = tmp_path / "run"
    runner.invoke(app, ["evaluate", "--data", str(data), "--out", str(out), "--dimension",
                        "constructiveness", "--quiet"])
    res = runner.invoke(app, ["compare", "--run", str(out), "--a", "sea", "--b", "reviewer2", "--n-bootstrap", "0"])
    assert res.exit_code == 2 and "Invalid value for '--n-bootstrap'" in res.output, res.output
    res = runner.invoke(app, ["compare", "--run", str(out), "--a", "sea", "--b", "reviewer2", "--metric", "bogus"])
    assert res.exit_code == 2, res.output
    assert "unknown metric 'bogus'" in res.output and "mcs" in res.output.lower(), res.output

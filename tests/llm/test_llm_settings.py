"""Settings precedence: CLI options > environment > config file > defaults, per step."""

from __future__ import annotations

import pytest

from prism_review.llm import ConfigError
from prism_review.llm.settings import Settings

TOML = """
[llm]
temperature = 0.2
max_tokens = 2000
concurrency = 4
rpm = 100

[llm.steps.flaws]
max_tokens = 16000

[llm.steps."flaws.step2"]
model = "gpt-4.1-mini"
max_tokens = 30000

[llm.steps."depth.segment"]
temperature = 0.0
"""

YAML = """
llm:
  temperature: 0.2
  max_tokens: 2000
  concurrency: 4
  rpm: 100
  steps:
    flaws: {max_tokens: 16000}
    flaws.step2: {model: gpt-4.1-mini, max_tokens: 30000}
    depth.segment: {temperature: 0.0}
"""


@pytest.fixture(params=["toml", "yaml"])
def config(tmp_path, request):
    path = tmp_path / f"prism.{request.param}"
    path.write_text(TOML if request.param == "toml" else YAML)
    return path


def test_defaults_only():
    s = Settings(env={})
    assert s.get("concurrency") == 8 and s.get("max_tokens") == 8000 and s.get("rpm") == 0
    assert s.for_step("depth.segment") == {"model": None, "temperature": 0.0, "max_tokens": 8000}
    # a step's own default temperature beats the built-in default only
    assert s.for_step("x.y", step_temperature=0.7)["temperature"] == 0.7


def test_config_file_over_defaults(config):
    s = Settings(env={}, config_path=config)
    assert s.get("concurrency") == 4 and s.get("rpm") == 100.0
    assert s.for_step("novelty.verify", 0.0) == {"model": None, "temperature": 0.2,
                                                 "max_tokens": 2000}
    # a longer prefix beats a shorter one, which beats the global value
    assert s.for_step("flaws.step1")["max_tokens"] == 16000
    assert s.for_step("flaws.step2") == {"model": "gpt-4.1-mini", "temperature": 0.2,
                                         "max_tokens": 30000}
    assert s.for_step("depth.segment")["temperature"] == 0.0
    # a prefix matches whole name parts only
    assert s.for_step("flawsy.x")["max_tokens"] == 2000


def test_env_over_config(config):
    env = {"PRISM_CONCURRENCY": "12", "PRISM_MAX_TOKENS": "3000",
           "PRISM_STEP__FLAWS_STEP2__MAX_TOKENS": "25000", "PRISM_RPM_LIMIT": "60"}
    s = Settings(env=env, config_path=config)
    assert s.get("concurrency") == 12 and s.get("rpm") == 60.0
    assert s.for_step("novelty.verify")["max_tokens"] == 3000
    # env global beats config per-step (a higher layer wins whatever its scope)
    assert s.for_step("flaws.step1")["max_tokens"] == 3000
    assert s.for_step("flaws.step2")["max_tokens"] == 25000
    assert s.for_step("flaws.step2")["model"] == "gpt-4.1-mini"


def test_cli_over_env(config):
    env = {"PRISM_CONCURRENCY": "12", "PRISM_TEMPERATURE": "0.5",
           "PRISM_STEP__DEPTH__MODEL": "env-model"}
    s = Settings(cli={"concurrency": 2, "temperature": 0.0},
                 cli_steps={"depth.segment": {"model": "cli-model"}}, env=env,
                 config_path=config)
    assert s.get("concurrency") == 2
    assert s.for_step("depth.segment") == {"model": "cli-model", "temperature": 0.0,
                                           "max_tokens": 2000}
    assert s.for_step("depth.other")["model"] == "env-model"


def test_config_path_from_env(config):
    s = Settings(env={"PRISM_CONFIG": str(config)})
    assert s.get("concurrency") == 4 and s.config_path == str(config)


def test_whole_file_may_be_the_llm_table(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text("timeout = 30\n[steps.depth]\nmax_tokens = 10\n")
    s = Settings(env={}, config_path=p)
    assert s.get("timeout") == 30.0 and s.for_step("depth.a")["max_tokens"] == 10


@pytest.mark.parametrize(
    ("text", "match"),
    [("concurrency = 'many'", "concurrency='many' is not a valid int"),
     ("colour = 1", "unknown setting 'colour'"),
     ("[steps.depth]\nrpm = 5", "may only set"),
     ("max_tokens = 1.5", "max_tokens=1.5")],
)
def test_bad_config_values(tmp_path, text, match):
    p = tmp_path / "c.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=match):
        Settings(env={}, config_path=p)


def test_bad_env_value_names_the_source():
    with pytest.raises(ConfigError, match="environment variable PRISM_TEMPERATURE: temperature='hot'"):
        Settings(env={"PRISM_TEMPERATURE": "hot"})


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        Settings(env={}, config_path=tmp_path / "nope.toml")


def test_judge_uses_config_file(tmp_path, monkeypatch):
    from prism_review.llm import make_judge

    p = tmp_path / "c.toml"
    p.write_text("[llm]\nconcurrency = 3\n[llm.steps.test]\nmax_tokens = 99\n")
    monkeypatch.setenv("PRISM_TIMEOUT", "7")
    judge = make_judge("openai-compatible/m@http://127.0.0.1:9/v1", config_path=p,
                       no_cache=True, concurrency=5)
    info = judge.runtime()["transport"]
    assert info["concurrency"] == 5 and info["timeout"] == 7.0
    assert info["config_file"] == str(p)
    assert judge.settings.for_step("test.label")["max_tokens"] == 99


def test_the_manifest_records_a_step_override_as_configured():
    # the step's own temperature/cap sit between the globals and the override: merging the
    # globals into the record stated temperature 0.0 and 8,000 tokens for flaws.consolidate,
    # which asks at 0.1 and 35,000
    from prism_review.judge.flaws.steps import ConsolidateStep

    s = Settings(cli_steps={"flaws.consolidate": {"model": "m"}}, env={})
    used = s.for_step("flaws.consolidate", ConsolidateStep.temperature, ConsolidateStep.reply_cap)
    assert used == {"model": "m", "temperature": 0.1, "max_tokens": 35_000}
    recorded = s.result_settings()["steps"]["flaws.consolidate"]
    assert recorded == {"model": "m"}
    assert all(used[k] == v for k, v in recorded.items())

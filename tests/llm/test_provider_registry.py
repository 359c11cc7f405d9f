"""Providers are registered units: a toy one runs ``prism evaluate`` end to end, plug-ins are
found by entry point, and importing prism_review loads no provider SDK."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.llm import ConfigError, FatalProviderError, make_judge
from prism_review.llm.provider import (
    builtin,
    get_provider,
    judge_forms,
    modelapi,
    parse_spec,
    providers,
    unregister,
)
from prism_review.pipelines.results import read_results
from prism_review.testing.llm_server import LLMServer

from ._steps import LabelIn, LabelStep


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=120)


def test_importing_prism_review_loads_no_provider_sdk() -> None:
    proc = _python("""
        import sys
        import prism_review, prism_review.llm, prism_review.cli, prism_review.pipelines.runner
        from prism_review.llm.provider import parse_spec, resolve_endpoint
        from prism_review.llm.pricing import PriceTable
        spec = parse_spec("gemini/gemini-2.5-flash")
        resolve_endpoint(spec, api_key="k", base_url=None)
        PriceTable().cost("gpt-4o-mini", 10, 10)
        sdks = sorted(m for m in sys.modules if m.split(".")[0] in ("openai", "google"))
        print("before", sdks)
        from prism_review.llm import make_judge
        make_judge("openai/gpt-4o-mini", api_key="k", no_cache=True)
        print("after", "openai" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    assert "before []" in proc.stdout, proc.stdout  # the registry and prices need no SDK
    assert "after True" in proc.stdout  # building a judge does load it (the check can fail)


def test_the_builtin_providers_and_their_aliases() -> None:
    names = [p.name for p in providers()]
    assert names[:3] == ["openai", "gemini", "openai-compatible"]
    assert get_provider("google").name == "gemini" and get_provider("ollama").name == "openai-compatible"
    # the same list, in the same order, whichever unit module is imported first
    proc = _python("""
        import prism_review.llm.providers.openai_compatible
        from prism_review.llm.provider import parse_spec
        try:
            parse_spec("x/y")
        except Exception as exc:
            print(exc)
    """)
    # (an installed plug-in's forms follow the built-ins', before the aliases)
    message = proc.stdout.strip()
    assert message.startswith(
        "unknown judge 'x/y': use 'offline', 'openai/<model>', 'gemini/<model>', "
        "'openai-compatible/<model>@http://host:port/v1'"), (message, proc.stderr)
    assert message.endswith(
        " or an alias: 'google/<model>', 'vllm/<model>@<url>', 'ollama/<model>'"), message
    plugins = [p for p in names if p not in ("openai", "gemini", "openai-compatible")]
    assert (message.count("/<model>") - 6) == len(plugins), message  # nothing else listed
    with pytest.raises(ConfigError, match="already taken"):
        modelapi("vllm")(lambda spec, **kw: None)  # an alias counts as a taken name


def test_a_module_dropped_into_the_providers_package_is_registered_in_its_order(tmp_path) -> None:
    # adding a built-in provider is one file: nothing lists the package's modules
    (tmp_path / "aaa_dropped.py").write_text(textwrap.dedent("""
        from prism_review.llm.provider import modelapi
        from prism_review.llm.providers.openai import chat_api
        modelapi("dropped", base_url="http://127.0.0.1:9/v1", order=15)(chat_api)
    """))
    proc = _python(f"""
        import prism_review.llm.providers as package
        package.__path__.append({str(tmp_path)!r})
        import json
        from prism_review.llm.provider import parse_spec, providers
        print(json.dumps([parse_spec("dropped/m").provider, [p.name for p in providers()]]))
    """)
    assert proc.returncode == 0, proc.stderr
    found, names = json.loads(proc.stdout)
    assert found == "dropped"
    assert names[:4] == ["openai", "dropped", "gemini", "openai-compatible"], names


@pytest.fixture
def toy_server() -> Iterator[LLMServer]:
    server = LLMServer(schema_seed=3).start()  # answers any step from its JSON schema
    server.api_key = "toy-secret"  # anything else gets a 401
    try:
        yield server
    finally:
        server.stop()


DOC_URL = "http://127.0.0.1:8000/v1"


def doc_toy_code() -> str:
    """The toy provider module of docs/extending.md, exactly as printed there."""
    doc = (Path(__file__).parents[2] / "docs" / "extending.md").read_text()
    section = doc[doc.index("## Adding a provider"):]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.fixture
def toy(toy_server: LLMServer) -> Iterator[Any]:
    """The provider of docs/extending.md, its server moved to the loopback one."""
    if "toy" in {u.name for u in providers()}:
        pytest.skip("a provider named 'toy' is installed (the packaged docs' toy?)")
    code = doc_toy_code()
    assert DOC_URL in code and "@modelapi(" in code
    exec(compile(code.replace(DOC_URL, toy_server.base_url), "toy_provider.py", "exec"), {})
    try:
        yield get_provider("toy")
    finally:
        unregister("toy")


def test_a_toy_provider_runs_prism_evaluate(toy, toy_server, tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("TOY_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="Toy needs an API key: set TOY_API_KEY"):
        make_judge("toy/test-model", no_cache=True)  # its own host wants its own key
    assert "'toy/<model>'" in str(pytest.raises(ConfigError, parse_spec, "toi/x").value)
    monkeypatch.setenv("TOY_API_KEY", "toy-secret")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    args = ["evaluate", "--judge", "toy/test-model", "--dimension", "depth", "--limit", "2",
            "--out", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache"), "--quiet",
            "--no-report"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    rows = read_results(tmp_path / "run")
    assert rows and {r.dimension for r in rows} == {"depth"}
    assert [r.status for r in rows] == ["ok"] * len(rows), [r.error for r in rows]
    assert toy_server.requests and not any(r.fault == "bad_key" for r in toy_server.requests)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["judge"]["judge"] == "toy/test-model" and manifest["judge"]["provider"] == "toy"
    with pytest.raises(ConfigError, match="declares no Batch API support"):
        make_judge("toy/test-model", batch=True)  # toy did not declare batch=True


def test_an_unregistered_provider_is_unknown_again(toy) -> None:
    assert parse_spec("toy/m").provider == "toy"
    assert "toy/<model>" in judge_forms().split(" | ")  # --judge help and messages name it
    unregister("toy")
    assert "toy/<model>" not in judge_forms()
    with pytest.raises(ConfigError, match="unknown judge 'toy/m'"):
        parse_spec("toy/m")


async def test_a_wrong_toy_key_stops_the_run_naming_its_variable(toy, toy_server, monkeypatch,
                                                                   tmp_path) -> None:
    monkeypatch.setenv("TOY_API_KEY", "wrong")
    judge = make_judge("toy/test-model", cache_dir=tmp_path)
    with pytest.raises(FatalProviderError, match=r"Toy rejected the API key \(401\): set TOY_API_KEY"):
        await judge.run(LabelStep(), LabelIn(text="x"))
    await judge.aclose()


def test_a_plugin_package_registers_through_its_entry_point(tmp_path: Path) -> None:
    (tmp_path / "plug_provider.py").write_text(textwrap.dedent("""
        from prism_review.llm.provider import modelapi

        @modelapi("plug", key_vars=("PLUG_KEY",), url_in_spec=True)
        def plug(spec, *, base_url, api_key):
            raise NotImplementedError
    """))
    info = tmp_path / "plug_provider-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug-provider\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[prism_review.providers]\nplug = plug_provider\n")
    proc = _python("""
        from prism_review.llm.provider import parse_spec
        print(parse_spec("plug/m@http://box:1/v1").name)
    """, PYTHONPATH=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "plug/m@http://box:1/v1"


class _NoBatchAPI:
    """A provider API of its own (not the OpenAI chat client): generate/aclose only."""

    def __init__(self, spec: Any, *, base_url: str, api_key: str) -> None:
        self.provider, self.base_url = spec.provider, base_url

    async def generate(self, req: Any) -> Any:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None


def test_dry_run_needs_an_api_that_builds_batch_lines(tmp_path) -> None:
    modelapi("bare", base_url="http://127.0.0.1:9/v1", batch=True)(_NoBatchAPI)
    try:
        assert make_judge("bare/m", cache_dir=tmp_path).name == "bare/m"
        with pytest.raises(ConfigError, match="bare cannot build batch lines"):
            make_judge("bare/m", dry_run=True, cache_dir=tmp_path)
    finally:
        unregister("bare")


def test_docs_providers_table_names_every_registered_provider() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "providers.md").read_text()
    table = "\n".join(line for line in doc.splitlines() if line.startswith("| `"))
    shipped = builtin()
    assert [u.name for u in shipped] == ["openai", "gemini", "openai-compatible"]
    for unit in shipped:  # the ones this package ships (an installed plug-in documents itself)
        for word in (unit.name, *unit.aliases):
            assert f"`{word}/<model>" in table, f"docs/providers.md does not list {word}/"


async def test_a_step_model_named_like_an_alias_is_a_model_id(llm_server, loopback_judge) -> None:
    # Hugging Face ids such as google/gemma-2-9b-it are models of the main judge's server, as
    # they were before the registry: only canonical provider names switch the provider
    llm_server.set_responder(lambda body: {"label": "positive", "score": 1, "reasons": []})
    judge = loopback_judge(steps={"test": {"model": "google/gemma-2-9b-it"}})
    assert (await judge.run(LabelStep(), LabelIn(text="x"))).ok
    assert llm_server.requests[0].body["model"] == "google/gemma-2-9b-it"


def test_builtin_providers_are_known_whichever_module_was_imported_first() -> None:
    # importing a unit module registers it before the registry's own look-up: still built-in
    # (before, builtin() listed only the units the look-up itself imported: ['gemini'] in a suite)
    proc = _python("""
        import prism_review.llm.providers.openai, prism_review.llm.providers.gemini
        from prism_review.llm.provider import builtin
        print([u.name for u in builtin()])
    """)
    assert proc.stdout.strip() == "['openai', 'gemini', 'openai-compatible']", proc.stderr

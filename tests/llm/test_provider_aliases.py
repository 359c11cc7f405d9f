"""Provider strings as the ecosystem writes them: google/, vllm/ and ollama/ are aliases."""

from __future__ import annotations

import pytest

from prism_review.llm import ConfigError, make_judge
from prism_review.llm.provider import parse_spec, resolve_endpoint
from prism_review.llm.providers.openai_compatible import OLLAMA_BASE_URL

from ._steps import LabelIn, LabelStep


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("google/gemini-2.5-flash", "gemini/gemini-2.5-flash"),
        ("vllm/Qwen/Qwen2.5-7B-Instruct@http://gpu:8000/v1",
         "openai-compatible/Qwen/Qwen2.5-7B-Instruct@http://gpu:8000/v1"),
        ("ollama/llama3.1:8b", f"openai-compatible/llama3.1:8b@{OLLAMA_BASE_URL}"),
        ("ollama/llama3.1:8b@http://box:11434/v1", "openai-compatible/llama3.1:8b@http://box:11434/v1"),
    ],
)  # fmt: skip
def test_aliases_become_the_canonical_spec(spec: str, canonical: str) -> None:
    assert parse_spec(spec).name == canonical  # one name in caches, manifests and results


def test_ollama_default_url_and_google_key() -> None:
    assert OLLAMA_BASE_URL == "http://localhost:11434/v1"
    url, key = resolve_endpoint(parse_spec("ollama/qwen3:4b"), api_key=None, base_url=None, env={})
    assert (url, key) == (OLLAMA_BASE_URL, "not-needed")
    url, key = resolve_endpoint(parse_spec("google/gemini-2.5-flash"), api_key=None,
                                base_url=None, env={"GOOGLE_API_KEY": "g"})  # fmt: skip
    assert "generativelanguage.googleapis.com" in url and key == "g"
    with pytest.raises(ConfigError, match="no server URL"):
        make_judge("vllm/qwen", no_cache=True)  # vLLM has no default address


async def test_vllm_alias_talks_to_the_server(llm_server, llm_cache_dir) -> None:
    llm_server.script({"label": "positive", "score": 3, "reasons": []})
    judge = make_judge(f"vllm/test-model@{llm_server.base_url}", cache_dir=llm_cache_dir)
    assert (await judge.run(LabelStep(), LabelIn(text="x"))).ok
    assert llm_server.requests[0].body["model"] == "test-model"
    await judge.aclose()


def test_unknown_provider_names_the_aliases() -> None:
    with pytest.raises(ConfigError, match="'ollama/<model>'"):
        make_judge("olama/llama3", no_cache=True)

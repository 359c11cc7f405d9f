"""``openai-compatible/<model>@http://host:port/v1``: any server speaking OpenAI's chat protocol.

vLLM, llama.cpp, OpenRouter, Together and Ollama differ from it only by defaults, so they are
aliases rather than units of their own: ``vllm/<model>@<url>`` (vLLM has no default address)
and ``ollama/<model>[@<url>]`` (Ollama's default address when no URL is given).
"""

from __future__ import annotations

from prism_review.llm.provider import modelapi
from prism_review.llm.providers.openai import at_openai, chat_api

OLLAMA_BASE_URL = "http://localhost:11434/v1"

# the key, if the server wants one, is OpenAI's variable; $OPENAI_BASE_URL names a server too.
# Most such servers have no /v1/batches: a batch run against one stops with the server's error.
modelapi("openai-compatible", label="OpenAI-compatible server", key_vars=("OPENAI_API_KEY",),
         base_url_var="OPENAI_BASE_URL", url_in_spec=True, needs_key=at_openai,
         aliases={"vllm": None, "ollama": OLLAMA_BASE_URL}, batch=True, sdk="openai", order=30)(chat_api)

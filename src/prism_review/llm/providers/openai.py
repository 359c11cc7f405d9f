"""``openai/<model>``: OpenAI, or the server ``--base-url`` / ``$OPENAI_BASE_URL`` names."""

from __future__ import annotations

from typing import Any

from prism_review.llm.provider import ModelAPI, ModelSpec, Provider, modelapi

OPENAI_BASE_URL = "https://api.openai.com/v1"

#: USD per 1M tokens (input, output), OpenAI's list prices when this table was written
PRICES = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}
#: USD per 1M cached input tokens
CACHED_INPUT_PRICES = {
    "gpt-4o": 1.25, "gpt-4o-mini": 0.075,
    "gpt-4.1": 0.50, "gpt-4.1-mini": 0.10, "gpt-4.1-nano": 0.025,
    "o3": 0.50, "o3-mini": 0.55, "o4-mini": 0.275,
    "gpt-5": 0.125, "gpt-5-mini": 0.025, "gpt-5-nano": 0.005,
}


def at_openai(unit: Provider, url: str) -> bool:
    """A key is required when the server is OpenAI's own; other servers accept any."""
    return "api.openai.com" in url


def chat_api(spec: ModelSpec, *, base_url: str, api_key: str, **_: Any) -> ModelAPI:
    """The OpenAI chat-completions client (the ``openai`` SDK is imported here, not earlier)."""
    from prism_review.llm.openai_chat import OpenAICompatibleAPI

    return OpenAICompatibleAPI(spec, base_url=base_url, api_key=api_key)


modelapi("openai", label="OpenAI", key_vars=("OPENAI_API_KEY",), base_url=OPENAI_BASE_URL,
         base_url_var="OPENAI_BASE_URL", needs_key=at_openai, prices=PRICES,
         cached_input_prices=CACHED_INPUT_PRICES, batch=True, sdk="openai", order=10)(chat_api)

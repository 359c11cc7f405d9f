"""``gemini/<model>`` (alias ``google/``): Gemini's OpenAI-compatible endpoint, no Google SDK."""

from __future__ import annotations

from prism_review.llm.provider import Provider, modelapi
from prism_review.llm.providers.openai import chat_api

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"

#: USD per 1M tokens (input, output), Google's list prices when this table was written
PRICES = {
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.0-flash": (0.10, 0.40),
}
CACHED_INPUT_PRICES = {
    "gemini-2.5-pro": 0.31, "gemini-2.5-flash": 0.075, "gemini-2.5-flash-lite": 0.025,
    "gemini-2.0-flash": 0.025,
}


def always(unit: Provider, url: str) -> bool:
    """Gemini wants its key wherever the endpoint is pointed."""
    return True


# Gemini's endpoint rejects ``seed``; its Batch API takes the OpenAI SDK's files/batches calls
modelapi("gemini", label="Gemini", key_vars=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
         base_url=GEMINI_BASE_URL, aliases={"google": None}, needs_key=always, prices=PRICES,
         cached_input_prices=CACHED_INPUT_PRICES, batch=True, sends_seed=False,
         sdk="openai", order=20)(chat_api)

"""Cost of a call from a price table (USD per million prompt / completion tokens).

The built-in table covers a few common models at their published list prices when this table
was written; prices change, so pass your own with ``prices=<file>`` (TOML or JSON)::

    # prices.toml — USD per 1M tokens
    ["gpt-4o-mini"]
    input = 0.15
    output = 0.60

    ["my-local-model"]
    input = 0
    output = 0

A model is looked up exactly, then by the longest table entry it starts with (dated snapshots
such as ``gpt-4o-mini-2024-07-18`` use the ``gpt-4o-mini`` price). Unknown models cost 0 and are
reported as unpriced.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from prism_review.llm.errors import ConfigError

#: USD per 1M tokens: (input, output)
BUILTIN_PRICES: dict[str, tuple[float, float]] = {
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
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.0-flash": (0.10, 0.40),
}


class PriceTable:
    """Model → (input, output) USD per 1M tokens, built-in table plus overrides."""

    def __init__(self, overrides: dict[str, tuple[float, float]] | None = None) -> None:
        self.prices = dict(BUILTIN_PRICES)
        self.prices.update(overrides or {})
        self.source = "built-in" if not overrides else "built-in + override"

    @classmethod
    def load(cls, path: str | Path | None) -> PriceTable:
        """The built-in table, overridden by the entries of a TOML or JSON file."""
        if path is None:
            return cls()
        p = Path(path)
        try:
            raw: Any = (tomllib.loads(p.read_text()) if p.suffix.lower() == ".toml"
                        else json.loads(p.read_text()))
        except (OSError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read price table {p}: {exc}") from None
        raw = raw.get("prices", raw) if isinstance(raw, dict) else raw
        table: dict[str, tuple[float, float]] = {}
        for model, entry in (raw or {}).items():
            try:
                table[model] = (float(entry["input"]), float(entry["output"]))
            except (KeyError, TypeError, ValueError):
                raise ConfigError(
                    f"price table {p}: {model!r} needs numeric 'input' and 'output'") from None
        table_obj = cls(table)
        table_obj.source = f"built-in + {p.name}"
        return table_obj

    def lookup(self, model: str) -> tuple[float, float] | None:
        """The price entry for ``model`` (exact, then longest prefix), or None."""
        name = model.rsplit("/", 1)[-1]
        for candidate in (model, name):
            if candidate in self.prices:
                return self.prices[candidate]
        best = max((k for k in self.prices if name.startswith(k)), key=len, default=None)
        return self.prices[best] if best else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD for one call, or None when the model is not in the table."""
        price = self.lookup(model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000

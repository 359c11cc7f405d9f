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

Batch calls (``--batch``) cost half of the live price unless an entry gives its own
``batch_input`` / ``batch_output`` (both OpenAI and Gemini bill their Batch APIs at 50%).

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
        #: explicit batch prices (model → (input, output)); others are half the live price
        self.batch_prices: dict[str, tuple[float, float]] = {}
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
        batch: dict[str, tuple[float, float]] = {}
        for model, entry in (raw or {}).items():
            try:
                table[model] = (float(entry["input"]), float(entry["output"]))
                if "batch_input" in entry or "batch_output" in entry:
                    batch[model] = (float(entry["batch_input"]), float(entry["batch_output"]))
            except (KeyError, TypeError, ValueError):
                raise ConfigError(
                    f"price table {p}: {model!r} needs numeric 'input' and 'output' (and "
                    "both 'batch_input' and 'batch_output' if either is given)") from None
        table_obj = cls(table)
        table_obj.batch_prices = batch
        table_obj.source = f"built-in + {p.name}"
        return table_obj

    def _entry(self, model: str) -> str | None:
        name = model.rsplit("/", 1)[-1]
        for candidate in (model, name):
            if candidate in self.prices:
                return candidate
        return max((k for k in self.prices if name.startswith(k)), key=len, default=None)

    def lookup(self, model: str, *, batch: bool = False) -> tuple[float, float] | None:
        """The price entry for ``model`` (exact, then longest prefix), or None; with ``batch``
        the entry's batch price, else half its live price."""
        entry = self._entry(model)
        if entry is None:
            return None
        if not batch:
            return self.prices[entry]
        live = self.prices[entry]
        return self.batch_prices.get(entry, (live[0] / 2, live[1] / 2))

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int, *,
             batch: bool = False) -> float | None:
        """USD for one call (at the batch price with ``batch``), or None when the model is
        not in the table."""
        price = self.lookup(model, batch=batch)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000

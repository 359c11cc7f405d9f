"""Cost of a call from a price table (USD per million prompt / completion tokens).

The built-in table is the union of the registered providers' ``prices`` (each provider's unit
lists a few common models at their published list prices when it was written); prices change,
so pass your own with ``prices=<file>`` (TOML or JSON)::

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
from prism_review.llm.provider import providers


def builtin_prices() -> dict[str, tuple[float, float]]:
    """USD per 1M tokens, (input, output): every registered provider's ``prices``, together.

    A model is priced by its name whoever serves it (``gpt-4o-mini`` through an
    OpenAI-compatible gateway costs what OpenAI charges), so the table is one, not per provider.
    """
    table: dict[str, tuple[float, float]] = {}
    for unit in providers():
        table.update(unit.prices)
    return table


def builtin_cached_input() -> dict[str, float]:
    """USD per 1M *cached* input tokens (prompt-cache hits the API reports as
    ``usage.prompt_tokens_details.cached_tokens``): every provider's ``cached_input_prices``.

    A model without an entry bills cached tokens at its full input price (never cheaper than it
    may be); a price file sets one with ``cached_input = ...``. Batch calls bill every input
    token at the batch input price.
    """
    table: dict[str, float] = {}
    for unit in providers():
        table.update(unit.cached_input_prices)
    return table


class PriceTable:
    """Model → (input, output) USD per 1M tokens, built-in table plus overrides."""

    def __init__(self, overrides: dict[str, tuple[float, float]] | None = None) -> None:
        self.prices = builtin_prices()
        self.prices.update(overrides or {})
        #: explicit batch prices (model → (input, output)); others are half the live price
        self.batch_prices: dict[str, tuple[float, float]] = {}
        self.cached_input = {k: v for k, v in builtin_cached_input().items()
                             if k not in (overrides or {})}
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
        cached: dict[str, float] = {}
        for model, entry in (raw or {}).items():
            try:
                table[model] = (float(entry["input"]), float(entry["output"]))
                if "batch_input" in entry or "batch_output" in entry:
                    batch[model] = (float(entry["batch_input"]), float(entry["batch_output"]))
                if entry.get("cached_input") is not None:
                    cached[model] = float(entry["cached_input"])
            except (KeyError, TypeError, ValueError, AttributeError):
                raise ConfigError(
                    f"price table {p}: {model!r} needs numeric 'input' and 'output' (and "
                    "both 'batch_input' and 'batch_output' if either is given, and a numeric "
                    "'cached_input' if given)") from None
        table_obj = cls(table)
        table_obj.batch_prices = batch
        table_obj.cached_input.update(cached)
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

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int,
             cached_tokens: int = 0, *, batch: bool = False) -> float | None:
        """USD for one call (at the batch price with ``batch``), or None when the model is
        not in the table. Live calls bill ``cached_tokens`` of the prompt tokens (as the API
        reports them) at the entry's cached-input price when the table has one, else at the
        input price."""
        price = self.lookup(model, batch=batch)
        if price is None:
            return None
        entry = self._entry(model)
        cached = 0 if batch else max(0, min(int(cached_tokens or 0), prompt_tokens))
        cached_price = self.cached_input.get(entry, price[0]) if entry and cached else price[0]
        return ((prompt_tokens - cached) * price[0] + cached * cached_price
                + completion_tokens * price[1]) / 1_000_000

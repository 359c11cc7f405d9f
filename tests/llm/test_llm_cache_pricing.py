"""The SQLite response cache and the price table."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from prism_review.llm import ConfigError
from prism_review.llm.cache import ResponseCache, default_cache_dir, request_key
from prism_review.llm.pricing import PriceTable


def test_request_key_is_canonical():
    assert request_key({"a": 1, "b": [1, 2]}) == request_key({"b": [1, 2], "a": 1})
    assert request_key({"a": 1}) != request_key({"a": 2})
    assert len(request_key({})) == 64


def test_cache_round_trip_and_counters(tmp_path):
    c = ResponseCache(tmp_path)
    assert c.get("k") is None
    c.put("k", "m", "reply", {"prompt_tokens": 3})
    assert c.get("k") == ("reply", {"prompt_tokens": 3})
    assert (c.hits, c.misses, c.writes, c.count()) == (1, 1, 1, 1)
    c.close()
    again = ResponseCache(tmp_path)  # persisted on disk
    assert again.get("k") == ("reply", {"prompt_tokens": 3})
    mode = sqlite3.connect(again.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_cache_concurrent_writers(tmp_path):
    c = ResponseCache(tmp_path)

    def work(i):
        for j in range(50):
            c.put(f"{i}-{j}", "m", "x" * 100, {})
            assert c.get(f"{i}-{j}") is not None

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.count() == 200


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("PRISM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "prism-review"
    monkeypatch.setenv("PRISM_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"


def test_prices_builtin_and_prefix():
    t = PriceTable()
    assert t.cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    # a dated snapshot uses the longest matching entry, not gpt-4o
    assert t.lookup("gpt-4o-mini-2024-07-18") == t.lookup("gpt-4o-mini")
    assert t.lookup("gpt-4o-2024-08-06") == (2.50, 10.00)
    assert t.cost("some-local-model", 10, 10) is None


def test_price_override_files(tmp_path):
    toml = tmp_path / "p.toml"
    toml.write_text('["gpt-4o-mini"]\ninput = 1.0\noutput = 2.0\n["mine"]\ninput = 0\noutput = 0\n')
    t = PriceTable.load(toml)
    assert t.lookup("gpt-4o-mini") == (1.0, 2.0) and t.cost("mine", 5, 5) == 0.0
    assert t.lookup("gpt-4o") == (2.50, 10.00)  # the rest of the built-in table stays
    js = tmp_path / "p.json"
    js.write_text('{"prices": {"x": {"input": 3, "output": 4}}}')
    assert PriceTable.load(js).lookup("x") == (3.0, 4.0)
    bad = tmp_path / "bad.json"
    bad.write_text('{"x": {"input": "free"}}')
    with pytest.raises(ConfigError, match="'x' needs numeric"):
        PriceTable.load(bad)

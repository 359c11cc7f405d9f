"""Pytest plugin: ``pytest_plugins = ["prism_review.testing.fixtures"]``.

Fixtures:

* ``llm_server`` — a started :class:`~prism_review.testing.llm_server.LLMServer` (function scope)
  with ``.base_url``, ``.requests``, ``.script(...)``, ``.set_responder(...)``, ``.canned(...)``.
* ``llm_cache_dir`` — an empty, per-test cache directory (``PRISM_CACHE_DIR`` points at it).
* ``_isolated_llm_cache`` (autouse) — every test gets its own ``PRISM_CACHE_DIR`` (created only if
  used), so no test reads or writes the user's real LLM cache and no test sees another's replies.
* ``loopback_judge`` — a factory ``loopback_judge(**options)`` returning an ``LLMJudge`` for
  ``openai-compatible/test-model@<llm_server.base_url>`` with the per-test cache, fast retries
  and a dummy key.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from prism_review.testing.llm_server import LLMServer


@pytest.fixture(autouse=True)
def _isolated_llm_cache(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Point ``PRISM_CACHE_DIR`` at a fresh per-test folder (not created until a cache opens)."""
    base = tmp_path_factory.getbasetemp() / "prism-llm-cache"
    monkeypatch.setenv("PRISM_CACHE_DIR", str(base / uuid.uuid4().hex))


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A loopback OpenAI-compatible server on 127.0.0.1, stopped after the test."""
    server = LLMServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def llm_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache directory for this test (also exported as ``PRISM_CACHE_DIR``)."""
    path = tmp_path / "llm-cache"
    monkeypatch.setenv("PRISM_CACHE_DIR", str(path))
    return path


@pytest_asyncio.fixture
async def loopback_judge(llm_server: LLMServer, llm_cache_dir: Path
                         ) -> AsyncIterator[Callable[..., Any]]:
    """Factory for judges that talk to ``llm_server`` through the real SDK (closed after)."""
    from prism_review.llm import make_judge

    made: list[Any] = []

    def factory(model: str = "test-model", **options: Any) -> Any:
        options.setdefault("cache_dir", llm_cache_dir)
        options.setdefault("api_key", "loopback-dummy-key")
        options.setdefault("retry_base", 0.01)
        options.setdefault("timeout", 10.0)
        judge = make_judge(f"openai-compatible/{model}@{llm_server.base_url}", **options)
        made.append(judge)
        return judge

    yield factory
    for judge in made:
        await judge.aclose()

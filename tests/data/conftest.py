"""Fixtures: small real-shaped corpus files built on the fly (see data_shapes.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from data_shapes import Hub, build_venue_folder, corpus_row, hub_handler, write_corpus


@pytest.fixture
def corpus_rows() -> list[dict[str, Any]]:
    return [
        corpus_row("p1", "ICLR_2024", "Accept (oral)"),
        corpus_row("p2", "ICLR_2024", "Reject"),
        corpus_row("p3", "ICLR_2024", "Pending"),
        corpus_row("p4", "ICLR_2025", "Accept (poster)"),
        corpus_row("p5", "ICLR_2025", "Reject"),
        corpus_row("p6", "NeurIPS_2025", "Accept (spotlight)"),
        corpus_row("p7", "ICML_2025", "Accept (poster)"),
    ]


@pytest.fixture
def corpus_parquet(tmp_path: Path, corpus_rows: list[dict[str, Any]]) -> Path:
    return write_corpus(tmp_path / "papers.parquet", corpus_rows)


@pytest.fixture
def venue_dir(tmp_path: Path) -> Path:
    return build_venue_folder(tmp_path / "raw")


@pytest.fixture
def hub() -> Iterator[tuple[Hub, str]]:
    state = Hub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), hub_handler(state))
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _own_hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Downloads go through huggingface_hub: each test gets its own cache, never the user's."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.delenv("HF_TOKEN", raising=False)

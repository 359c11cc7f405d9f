"""An unreachable hub fails fast: one probe, then the cache only (no 20-45 s of retries)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from data_shapes import Hub

from prism_review.data import download as dl
from prism_review.data.download import OfflineError, download_dataset

PAYLOAD = b"cached parquet bytes" * 100


def _closed_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens (loopback only)
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("https_proxy", "http_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
        monkeypatch.delenv(var.upper(), raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)


def test_nothing_cached_and_no_hub_is_an_offline_error_at_once(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    for name in ("prism-corpus", "perturbation"):  # a fixed file, a listed repository
        t0 = time.perf_counter()
        with pytest.raises(OfflineError, match="appear to be offline.*pass --data"):
            download_dataset(name, tmp_path / name, endpoint=url, cache_dir=tmp_path / "c")
        assert time.perf_counter() - t0 < 5.0, name


def test_a_cached_file_is_served_when_the_hub_is_gone(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = PAYLOAD
    cache = tmp_path / "cache"
    download_dataset("prism-corpus", tmp_path / "a", endpoint=url, cache_dir=cache)
    gone = f"http://127.0.0.1:{_closed_port()}"
    # the cache is keyed by repo and file, not by endpoint: the same file, no request at all
    n = len(state.requests)
    t0 = time.perf_counter()
    got = download_dataset("prism-corpus", tmp_path / "b", endpoint=gone, cache_dir=cache)
    assert time.perf_counter() - t0 < 5.0
    assert got[0].read_bytes() == PAYLOAD and len(state.requests) == n


def test_behind_a_proxy_the_hub_is_not_probed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:1")
    assert dl.reachable(f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.delenv("HTTPS_PROXY")
    assert not dl.reachable(f"http://127.0.0.1:{_closed_port()}")

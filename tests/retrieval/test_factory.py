"""Retrieval construction from a run's settings, and the one cache root every cache uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_review.cache_dir import cache_root
from prism_review.llm.cache import default_cache_dir
from prism_review.retrieval.factory import NoRetrieval, default_index_dir, make_retriever
from prism_review.retrieval.local_index import LocalIndex, build_index
from prism_review.retrieval.s2 import SemanticScholarClient


def test_every_cache_lives_under_one_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PRISM_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine" == default_cache_dir()
    assert default_index_dir(None).parent == tmp_path / "mine" / "novelty-index"
    monkeypatch.delenv("PRISM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "prism-review" == default_cache_dir()
    assert default_index_dir(None).parent == tmp_path / "xdg" / "prism-review" / "novelty-index"


def test_make_retriever_follows_the_settings(tmp_path: Path) -> None:
    assert isinstance(make_retriever({"retrieval": "none"}, None), NoRetrieval)
    s2 = make_retriever({"retrieval": "S2", "s2_base_url": "http://127.0.0.1:9/graph/v1",
                         "s2_min_interval": 0, "s2_max_attempts": 2}, None)
    assert isinstance(s2, SemanticScholarClient)
    assert (s2.base_url, s2.min_interval, s2.max_attempts) == ("http://127.0.0.1:9/graph/v1", 0.0, 2)
    build_index(tmp_path / "idx", [{"id": "a", "title": "Sparse attention for long documents",
                                    "abstract": "", "year": 2020, "kind": "paper"}])
    local = make_retriever({"index_dir": str(tmp_path / "idx")}, None)  # local is the default
    assert isinstance(local, LocalIndex) and local.manifest["documents"] == 1
    with pytest.raises(ValueError, match="unknown retrieval backend 'web'"):
        make_retriever({"retrieval": "web"}, None)

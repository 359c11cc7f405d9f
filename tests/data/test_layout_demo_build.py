"""The bundled demo is exactly what scripts/build_demo.py builds from its sources (when present)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from prism_review.data.layout import demo_root
from prism_review.testing.shared import SHARED

ROOT = Path(__file__).resolve().parents[2]
SOURCES = Path(f"{SHARED}/data/demo-sources")


def _builder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("build_demo", ROOT / "scripts" / "build_demo.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_review_sections_from_segments() -> None:
    b = _builder()
    segs = [
        "Summary of the Paper:",
        "It does X.",
        "It does Y.",
        "Strengths and Weaknesses:",
        "Strengths:",
        "Simple.",
        "Fast.",
        "Weaknesses:",
        "- One seed.",
        "Only CIFAR.",
        "- No code.",
    ]
    assert b.review_sections(segs) == [
        {"name": "Summary of the Paper", "text": "It does X. It does Y."},
        {"name": "Strengths", "text": "Simple.\nFast."},  # bare list: one point per line
        {"name": "Weaknesses", "text": "- One seed. Only CIFAR.\n- No code."},
    ]
    used: set[str] = set()
    assert b.slug("Cramming: Training a LM!", used) == "cramming-training-a-lm"
    assert b.slug("Cramming: Training a LM!", used) == "cramming-training-a-lm-2"


@pytest.mark.skipif(not SOURCES.is_dir(), reason="demo sources not on this machine")
def test_rebuild_matches_bundled_demo(tmp_path: Path) -> None:
    _builder().build(SOURCES, tmp_path / "demo")
    bundled = demo_root()
    rebuilt = sorted(
        p.relative_to(tmp_path / "demo") for p in (tmp_path / "demo").rglob("*") if p.is_file()
    )
    assert rebuilt == sorted(p.relative_to(bundled) for p in bundled.rglob("*") if p.is_file())
    for rel in rebuilt:
        assert (tmp_path / "demo" / rel).read_bytes() == (bundled / rel).read_bytes(), rel


def test_bundled_demo_keeps_labels_out_and_is_small() -> None:
    root = demo_root()
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert size < 5_000_000
    for path in root.rglob("reviews.jsonl"):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                assert set(row) == {"paper_id", "reviewer_id", "sections", "scores", "extra"}
                assert set(row["extra"]) == {"model", "segments", "source_index"}
    assert (root / "LICENSES" / "RevUtil-CC-BY-NC-SA-4.0.txt").is_file()
    assert "CC BY-NC-SA 4.0" in (root / "README.md").read_text(encoding="utf-8")

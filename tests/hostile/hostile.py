"""Builders of hostile inputs shared by the tests of this folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

from prism_review.testing.layout_samples import write_layout

SECRET = "TOP-SECRET-OUTSIDE-DATA-ROOT"
DEEP = "[" * 100_000 + "]" * 100_000  # crashes a plain json.loads with RecursionError


def deep_object(key: str = "x") -> str:
    """An object whose field ``key`` holds the 100,000-deep array."""
    return '{"' + key + '": ' + DEEP + "}"


def layout(tmp: Path) -> Path:
    """A small DATA_ROOT (ICLR2024 p1 p2, ICML2025 m1) and a secret folder beside it."""
    root = write_layout(tmp / "data")
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"# {SECRET}\n\n{SECRET} " * 20, encoding="utf-8")
    (outside / "p1.txt").write_text(f"**Summary:**\n{SECRET} review text here.\n", encoding="utf-8")
    (outside / "p1.json").write_text(json.dumps({"reviews": [{"Summary": SECRET}]}), encoding="utf-8")
    (outside / "reviews.jsonl").write_text(json.dumps({"paper_id": "p1", "text": SECRET}) + "\n")
    (outside / "meta.jsonl").write_text(json.dumps({"paper_id": "p1", "title": SECRET}) + "\n")
    return root


def symlink(link: Path, target: Path) -> None:
    if link.exists() or link.is_symlink():
        if link.is_dir() and not link.is_symlink():
            import shutil

            shutil.rmtree(link)
        else:
            link.unlink()
    os.symlink(target, link)


def v(root: Path, venue: str = "ICLR2024") -> Path:
    return root / venue

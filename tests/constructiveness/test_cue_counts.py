"""``cue_counts`` (lower-cased ASCII text, case-sensitive twins) counts what ``re.IGNORECASE`` did."""

from __future__ import annotations

import random
import re

import pytest

from prism_review.judge.constructiveness.features import CUES, _lower_twin, cue_counts
from prism_review.judge.depth.data import load_disapere
from prism_review.shared_folder import DATA


def _old(text: str) -> list[int]:  # every cue case-insensitively on the text as given
    return [len(p.findall(text)) for p in CUES.values()]


def _texts() -> list[str]:
    dev = DATA / "labels" / "disapere" / "dev.jsonl"
    if not dev.is_file():
        pytest.skip("DISAPERE not in the shared folder")
    reviews = [r.full_text for r in load_disapere(dev)]
    lines = [ln for r in reviews for ln in r.split("\n") if ln.strip()]
    rng = random.Random(5)
    words = sorted({w for p in CUES.values() for w in re.findall(r"[a-z]{3,}", p.pattern)})
    made = [" ".join(rng.choice(words + ["Sec.", "2", "(Fig", "IV)", "e.g.", "?"])
                     for _ in range(30)) for _ in range(300)]
    base = lines + made
    return base + [t.upper() for t in base] + [t.swapcase() for t in base] + [
        "".join(c.upper() if rng.random() < 0.5 else c for c in t) for t in base]


def test_equal_to_case_insensitive_counting() -> None:
    texts = _texts()
    assert sum(t.isascii() for t in texts) > len(texts) // 2
    for t in texts:
        assert cue_counts(t) == _old(t), t[:120]
    assert sum(sum(_old(t)) for t in texts) > 10 * len(texts)  # the cues do fire


def test_patterns_with_upper_case_keep_ignorecase() -> None:
    assert _lower_twin(CUES["ref_element"]) is None  # [0-9IVX]
    assert _lower_twin(CUES["citation"]) is None  # [A-Z]
    assert _lower_twin(CUES["named_method"]) is None  # case-sensitive
    assert _lower_twin(CUES["modal_should"]) is not None

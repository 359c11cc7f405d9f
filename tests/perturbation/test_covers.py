"""The fast quote-coverage decision gives difflib's answer (it replaces it for speed)."""

from __future__ import annotations

import random
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from prism_review.metrics.perturbation import (
    covers,
    longest_match,
    normalize_for_match,
    quote_coverage,
)
from prism_review.testing.shared import SHARED

DEV = Path(f"{SHARED}/data/perturbation/dev.jsonl")


def test_longest_match_is_difflibs_including_ties() -> None:
    rng = random.Random(11)
    for _ in range(5000):  # a small alphabet makes many ties
        a = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 14)))
        b = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 24)))
        alo, blo = rng.randint(0, len(a)), rng.randint(0, len(b))
        ahi, bhi = rng.randint(alo, len(a)), rng.randint(blo, len(b))
        want = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(alo, ahi, blo, bhi)
        assert longest_match(a, b, alo, ahi, blo, bhi) == tuple(want), (a, b, alo, ahi, blo, bhi)


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.75, 0.9, 1.0])
def test_covers_on_random_text(threshold: float) -> None:
    rng = random.Random(int(threshold * 100))
    words = ["the", "rate", "is", "0.1", "model", "$x^2$", "of", "a", "loss", "we"]
    for _ in range(1500):
        q = " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        w = " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))
        assert covers(q, w, threshold) is (quote_coverage(q, w) >= threshold), (q, w)


@pytest.mark.skipif(not DEV.is_file(), reason="shared perturbation dev file not present")
def test_covers_on_dev_edits_against_paper_paragraphs() -> None:
    """Real edits against long paragraphs of their paper (where difflib is slow) and against
    the verifier's quotes: the same decisions at the benchmark's 0.75 and around it."""
    import json

    rng = random.Random(5)
    rows = [json.loads(x) for x in DEV.read_text(encoding="utf-8").splitlines()[:12] if x.strip()]
    n = 0
    for row in rows:
        paras = [normalize_for_match(p) for p in row["perturbed_paper"].split("\n\n") if len(p) > 300]
        for pert in row["perturbations"][:6]:
            p = normalize_for_match(pert["perturbed"])
            for w in [*rng.sample(paras, min(3, len(paras))), normalize_for_match(pert["verifier_quote"])]:
                if not p or not w or p in w:
                    continue
                cov = quote_coverage(p, w)
                for t in (0.6, 0.75, cov):
                    assert covers(p, w, t) is (cov >= t)
                n += 1
    assert n > 100

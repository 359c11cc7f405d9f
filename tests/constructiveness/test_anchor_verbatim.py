"""``anchor_is_verbatim`` folds each review's whitespace once (memoised) and answers as before."""

from __future__ import annotations

import re

import pytest

from prism_review.judge.constructiveness.arc import anchor_is_verbatim
from prism_review.judge.depth.data import load_disapere
from prism_review.shared_folder import DATA


def _old(anchor: str, review: str) -> bool:  # the code before the memo
    a = re.sub(r"\s+", " ", anchor).strip()
    return bool(a) and a in re.sub(r"\s+", " ", review)


def test_equal_to_the_unmemoised_check_on_real_reviews() -> None:
    dev = DATA / "labels" / "disapere" / "dev.jsonl"
    if not dev.is_file():
        pytest.skip("DISAPERE not in the shared folder")
    reviews = [r.full_text for r in load_disapere(dev)]
    answers = []
    for i, review in enumerate(reviews):
        other = reviews[(i + 1) % len(reviews)]
        for line in review.split("\n")[:6]:
            anchor = "  ".join(line.split()[:8])  # its own words, whitespace changed
            for r in (review, other, review.replace(" ", "\n")):
                got = anchor_is_verbatim(anchor, r)
                assert got == _old(anchor, r)
                answers.append(got)
    assert True in answers and False in answers

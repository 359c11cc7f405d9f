"""``--compat`` cuts an LLM's claim texts as the original did (issue 30, item 7; ``NOV-CLAIM-CUT``).

The original cuts a claim at every ``.``, ``!`` or ``?`` and re-joins the first two pieces with a
space before its verbatim test, so a claim with "e.g." or a decimal in those pieces no longer
occurs in the review and is dropped. The default keeps such claims (it cuts at sentence ends).
"""

from __future__ import annotations

import pytest

from prism_review.judge.novelty.claims import (
    ClaimOut,
    ClaimsInput,
    ClaimsOutput,
    ClaimsStep,
    reference_cut,
)

REVIEW = ("Summary: a new loss for graphs.\n"
          "The loss, e.g. its KL term, is the same as in prior work. It is standard.\n"
          "The main novelty is the sampler, which improves accuracy by 0.5 points over GraphSAGE.\n")


@pytest.mark.parametrize(("text", "cut"), [
    ("The loss, e.g. its KL term, is the same as in prior work. It is standard.", "The loss, e. g."),
    ("It improves by 0.5 points. This is incremental. More.", "It improves by 0. 5 points."),
    ("A. B! C?", "A. B!"),
    ("Not novel", "Not novel"),
    ("Incremental.   ", "Incremental."),
])
def test_reference_cut(text: str, cut: str) -> None:
    assert reference_cut(text) == cut


@pytest.mark.parametrize("compat", [False, True])
def test_compat_drops_the_claims_the_original_dropped(compat: bool) -> None:
    raw = ClaimsOutput(novelty_claims=[
        ClaimOut(text="The loss, e.g. its KL term, is the same as in prior work.", stance="not_novel"),
        ClaimOut(text="The main novelty is the sampler, which improves accuracy by 0.5 points over GraphSAGE.",
                 stance="novel"),
        ClaimOut(text="Summary: a new loss for graphs.", stance="novel"),
    ])
    out = ClaimsStep().finalize(ClaimsInput(review=REVIEW, compat=compat), raw)
    texts = [c.text for c in out.novelty_claims]
    if compat:
        assert texts == ["Summary: a new loss for graphs."]
    else:
        assert len(texts) == 3 and texts[0].startswith("The loss, e.g. its KL term")

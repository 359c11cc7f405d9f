"""The cost benchmark's quoting judge (``prism_review.testing.quoting``) answers ``novelty.paper``
with phrases copied out of the paper it is sent, so retrieval runs on the paper's own terms."""

from __future__ import annotations

from prism_review.judge.novelty.paper_side import PaperSideInput, PaperSideStep
from prism_review.testing.quoting import paper_side

TEXT = """Sparse Mixture Routing for Graph Transformers

Abstract
We propose sparse mixture routing, a method that routes graph tokens to experts. Sparse mixture
routing reduces the attention cost of graph transformers on molecular graphs. We evaluate sparse
mixture routing on molecular property prediction and show that graph transformers with sparse
mixture routing match dense attention on QM9.

1 Introduction
Graph transformers are costly on large molecular graphs.
"""


def test_paper_side_quotes_the_fenced_paper():
    msgs = PaperSideStep().messages(PaperSideInput(paper_id="p", title="", text=TEXT))
    user = next(m.content for m in msgs if m.role == "user")
    side = paper_side(user)
    low = " ".join(TEXT.lower().split())
    assert side["key_terms"] and all(t.lower() in low for t in side["key_terms"])
    assert "sparse mixture routing" in [t.lower() for t in side["key_terms"]]
    assert side["core_task"] and side["contributions"]


def test_nothing_fenced_gives_an_empty_side():
    side = paper_side("no paper here")
    assert side["key_terms"] == [] and side["contributions"] == []

"""The offline novelty judge's evidence: the MiniLM embedder and the claim-to-candidate closeness."""

import numpy as np

from prism_review.judge.novelty.closeness import pair_closeness, split_candidate, subject_terms
from prism_review.judge.novelty.embedder import load_embedder

TITLE = "Block-sparse attention for long documents"
ABSTRACT = ("We propose a block-sparse attention kernel that lets transformers read documents of tens of "
            "thousands of tokens with memory linear in the length.")


def test_embedder_vectors_are_unit_and_independent_of_call_mates():
    emb = load_embedder()
    emb.clear_cache()
    alone = emb.vectors(["sparse attention for long documents"])[0]
    emb.clear_cache()
    mixed = emb.vectors(["generative adversarial networks", "sparse attention for long documents", ""])
    assert abs(float(np.linalg.norm(alone)) - 1.0) < 1e-5
    assert np.array_equal(alone, mixed[1])
    assert not np.any(mixed[2])  # an empty text is the zero vector, never a made-up one
    near, far = emb.vectors(["Longformer: the long-document transformer", "Generative adversarial networks"])
    assert float(alone @ near) > float(alone @ far) + 0.2


def test_subject_terms_keep_what_the_claim_names_of_the_paper():
    assert subject_terms("The novelty is limited.") == []
    generic = "Its strengths lie in its novel approach and the significant improvements."
    assert subject_terms(generic, f"{TITLE} {ABSTRACT}") == []  # 'lie' is not something of the paper
    assert subject_terms("The block-sparse attention kernel is not new.") == ["block-sparse", "attention", "kernel"]
    # with the paper: only words the paper uses (a plural s aside)
    assert subject_terms("The kernels and the graph pooling are not new.", f"{TITLE} {ABSTRACT}") == ["kernels"]


def test_split_candidate():
    parts = split_candidate("Title: Longformer\n\nAbstract: Linear attention.\n\nIntroduction: x")
    assert (parts.title, parts.abstract) == ("Longformer", "Linear attention.")
    assert split_candidate("Just a title").abstract == ""


def test_closeness_compares_like_with_like():
    cands = ["Title: Longformer: the long-document transformer\n\nAbstract: An attention mechanism that scales "
             "linearly with sequence length, for documents of thousands of tokens.",
             "Title: Longformer: the long-document transformer",
             "Title: Generative adversarial networks\n\nAbstract: A generator and a discriminator play a minimax game.",
             ""]
    got = pair_closeness("The sparse attention kernel for long documents is not new.", TITLE, ABSTRACT, cands)
    full, title_only, far, empty = got
    assert empty is None  # no candidate text: no evidence
    assert full.has_abstract and not title_only.has_abstract
    assert title_only.self_cosine != full.self_cosine  # the title-only candidate is held to the paper's title
    assert full.subject == "claim" and far.delta < full.delta - 0.2
    vague = pair_closeness("The novelty is limited.", TITLE, ABSTRACT, cands[:1])[0]
    assert vague.subject == "paper"  # a claim naming nothing is about the paper as a whole

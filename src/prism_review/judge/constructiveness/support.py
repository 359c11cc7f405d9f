"""Justification signal of a comment from the DoA encoder's role head (D3's support features).

Verifiability asks whether a comment's claim is supported by reasoning, evidence, references or
examples. The offline DoA encoder (:mod:`prism_review.judge.depth.encoder`) already has a head
trained for exactly that distinction at sentence level: ``role`` gives P(Premise), where Premise is
SubstanReview's *evidence* (the justification of a claim) and DISAPERE's facts, and ``mixed`` gives
P(the sentence holds a claim and its support). Read over a comment's sentences, these are a
justification signal that does not grow with length: a share, a maximum and a mean, not counts.

The comment's sentences are cut by :func:`prism_review.text.sentence_spans`, as the DoA judge cuts
a review, so when both dimensions run in one process most sentence vectors come from the
encoder's per-sentence cache. The sentences of one comment are one encoder call (each sentence
sees its neighbours in the comment), so a comment's features do not depend on the review around
it, as at training time (RevUtil points are single comments).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.text import sentence_spans

#: feature names, in column order (see :func:`support_row`)
SUPPORT_NAMES: list[str] = [
    "premise_share",  # share of the comment's sentences with P(Premise) > 0.5
    "premise_max",
    "premise_mean",
    "mixed_max",  # P(one sentence holds a claim and its support), max over sentences
    "support_any",  # max over sentences of max(P(Premise), P(mixed)): some support somewhere
    "argumentative_mean",
]


def comment_sentences(text: str) -> list[str]:
    """The comment's sentences (the whole text when the splitter finds none)."""
    sents = [s.text for s in sentence_spans(text)]
    return sents or [text.strip() or text]


def support_row(probs: dict[str, np.ndarray]) -> list[float]:
    """:data:`SUPPORT_NAMES` from one comment's per-sentence head probabilities."""
    prem = probs["role"][:, 1].astype(float)
    mixed = probs["mixed"][:, 1].astype(float) if "mixed" in probs else np.zeros_like(prem)
    arg = probs["argumentative"][:, 1].astype(float)
    return [
        float((prem > 0.5).mean()),
        float(prem.max()),
        float(prem.mean()),
        float(mixed.max()),
        float(np.maximum(prem, mixed).max()),
        float(arg.mean()),
    ]


def support_matrix(texts: Sequence[str], encoder: Any | None = None) -> np.ndarray:
    """(n_texts × len(SUPPORT_NAMES)) support features; ``encoder`` defaults to the shipped one."""
    if not texts:
        return np.zeros((0, len(SUPPORT_NAMES)))
    if encoder is None:
        from prism_review.judge.depth.encoder import load_encoder

        encoder = load_encoder()
    sents = [comment_sentences(t) for t in texts]
    encoder.vectors([s for ss in sents for s in ss])  # one encode pass over every new sentence
    return np.asarray([support_row(encoder.probabilities(ss)) for ss in sents], dtype=float)


def encoder_at(spec: str | None) -> Any:
    """The encoder named on the command line (None: no support features)."""
    if spec is None:
        return None
    from prism_review.judge.depth.encoder import load_encoder, read_encoder

    return load_encoder() if spec == "shipped" else read_encoder(Path(spec))

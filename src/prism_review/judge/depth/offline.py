"""The offline DoA judge: sentence segmentation + the fine-tuned sentence encoder + a linear head.

* segment: the review's sentences (:func:`prism_review.text.sentence_spans`), minus headings,
  score lines and other non-argumentative sentences (the encoder's ``argumentative`` head,
  trained on DISAPERE structuring/social/other and SubstanReview's unlabelled sentences);
  every section the text policy passes is segmented, the Summary included (prism-reference
  §2/§4.1); a sentence that holds a claim and its support becomes two clause units
  (:mod:`.clauses`, the encoder's ``mixed`` head);
* classify: the encoder's ``role`` and ``aspect`` heads over the units in review order
  (:mod:`.encoder`: each unit sees its neighbours);
* ground: the linear ``grounding`` head (:mod:`.model`) per premise, on the premise's own text
  (trained on RevUtil points; measured on units of a premise's size, single-sentence points,
  by :mod:`prism_review.training.depth.train_grounding`; see the model card).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from prism_review.judge.depth.clauses import split_clause
from prism_review.judge.depth.encoder import load_encoder
from prism_review.judge.depth.model import load_model
from prism_review.judge.depth.models import (
    ClassifiedItem,
    ClassifyOutput,
    GroundItem,
    GroundOutput,
    SegmentItem,
    SegmentOutput,
    Unit,
)
from prism_review.text import sentence_spans

_HEADING = re.compile(
    r"^\s*(?:#+\s*.*|\*\*[^*]{1,60}\*\*:?\s*|[A-Z][\w /&-]{0,40}:\s*|[-=*_]{3,})$"
)
_SCORE_LINE = re.compile(
    r"^\s*\**\s*(?:rating|confidence|soundness|presentation|contribution"
    r"|overall|score|recommendation)\s*\**\s*[:=]",
    re.I,
)


_F = TypeVar("_F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=1)
def _blas() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def single_threaded_blas(fn: _F) -> _F:
    """Run ``fn`` with one BLAS thread.

    The judge's matrices are small. A multi-threaded BLAS leaves its threads spinning after
    each call, and they take the CPU from the encoder's onnxruntime runs. On DISAPERE dev this
    wrapper took the DoA pipeline from 32 to 49 reviews/s on 2 cores
    (``benchmarks/bench_depth_offline.py``).
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _blas().limit(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def is_structural(text: str) -> bool:
    """Headings, rules and score lines: never argumentative whatever the model says."""
    return bool(_HEADING.match(text) or _SCORE_LINE.match(text)) or not re.search(r"\w", text)


_HEAD_LINE = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*(?P<h1>[^\n]+?)|\*\*(?P<h2>[^*\n]{1,60}?):?\*\*:?|"
    r"(?P<h3>[A-Z][A-Za-z /&-]{1,40}):)[ \t]*$",
    re.M,
)
_LEAD_HEAD = re.compile(
    r"^(?:\*\*[^*\n]{1,60}\*\*:?|#{1,6}[^\n]*|[A-Z][A-Za-z&-]*(?: [A-Za-z&-]+){0,3}:)"
    r"[ \t]*(?:\n|(?=\S))"
)
#: in a headed section a sentence is kept unless the model is this sure it is not argumentative
SECTION_KEEP_THRESHOLD = 0.2
#: the summary section: the reference's segmenter keeps restatements of the paper as units
#: (prism-reference §4.2, "claim, premise, observation or recommendation"), whereas the
#: argumentation datasets the filter learned from call them non-argumentative, so there the
#: filter is not applied (headings and score lines are still dropped)
_SUMMARY = re.compile(r"^\s*(?:paper\s+)?summary|summary of the paper|synopsis", re.I)
#: a kept sentence whose ``mixed`` probability exceeds this is split into two clause units
MIXED_THRESHOLD = 0.5


def _headings(text: str) -> list[tuple[int, str]]:
    """(offset, name) of every heading line of a markdown-ish review."""
    out = []
    for m in _HEAD_LINE.finditer(text):
        name = m.group("h1") or m.group("h2") or m.group("h3") or ""
        out.append((m.start(), name.strip(" *:#")))
    return out


#: review texts whose units are kept: the runner's prefetch and the unit's own segment call
#: split the same review, up to a window of queued units apart
_UNITS_CACHE = 256


@functools.lru_cache(maxsize=_UNITS_CACHE)
def review_units(review_text: str) -> tuple[tuple[str, str | None], ...]:
    """(sentence, section name or None) of a review, with heading text cut off the sentences
    (cached per text: :func:`prefetch_segment` and :func:`segment` both ask for it)."""
    heads = _headings(review_text)
    out: list[tuple[str, str | None]] = []
    for sp in sentence_spans(review_text):
        text, start = sp.text, sp.start
        m = _LEAD_HEAD.match(text)
        while m and m.end() < len(text):  # a heading glued to the sentence that follows it
            start += m.end()
            text = text[m.end() :].lstrip()
            m = _LEAD_HEAD.match(text)
        section = None
        for off, name in heads:
            if off <= start:
                section = name
        out.append((text, section))
    return tuple(out)


def prefetch_segment(review_text: str) -> int:
    """Queue on the encoder's workers the sentences :func:`segment` will encode for this
    review text (free segmentation), so they are encoded while the caller does other work.
    Changes no value (each sentence is encoded alone); returns how many were queued."""
    return load_encoder().prefetch([t for t, _ in review_units(review_text)])


@single_threaded_blas
def segment(review_text: str, sentences: list[str] | None = None) -> SegmentOutput:
    """Argumentative units of a review, or the argumentative subset of given ``sentences``.

    Free segmentation is section-aware: every sentence of a Summary section is a unit (the
    reference segments restatements too); in any other headed section a sentence is kept
    unless the model is confident it is not argumentative (thanks, greetings); unheaded text
    relies on the model alone. A kept
    sentence the ``mixed`` head calls claim-plus-support is cut into two clause units at its
    first clause cue (:func:`.clauses.split_clause`). Given ``sentences`` are only selected,
    never split (their indices are the answer).
    """
    pairs: Sequence[tuple[str, str | None]] = (
        [(t, None) for t in sentences] if sentences is not None else review_units(review_text))
    texts = [t for t, _ in pairs]
    if not texts:
        return SegmentOutput(arguments=[])
    probs = load_encoder().probabilities(texts)
    p_arg = probs["argumentative"][:, 1]
    p_mixed = probs["mixed"][:, 1] if "mixed" in probs and sentences is None else None
    t_arg = 0.5
    keep: list[SegmentItem] = []
    for i, ((text, section), p) in enumerate(zip(pairs, p_arg, strict=True)):
        if is_structural(text):
            continue
        if section is not None and _SUMMARY.search(section):
            threshold = -1.0
        elif section is not None:
            threshold = SECTION_KEEP_THRESHOLD
        else:
            threshold = t_arg
        if p <= threshold:
            continue
        pieces = (
            split_clause(text) if p_mixed is not None and p_mixed[i] > MIXED_THRESHOLD else None
        )
        for piece in pieces or (text,):
            keep.append(SegmentItem(index=i, argument=piece))
    return SegmentOutput(arguments=keep)


@single_threaded_blas
def classify(units: list[Unit]) -> ClassifyOutput:
    """Role and aspect of each unit (context: the units in the given order)."""
    texts = [u.text for u in units]
    if not texts:
        return ClassifyOutput(classified_arguments=[])
    enc = load_encoder()
    p = enc.probabilities(texts)
    roles = enc.predict("role", p["role"])
    aspects = enc.predict("aspect", p["aspect"])
    return ClassifyOutput(
        classified_arguments=[
            ClassifiedItem(index=u.index, argument=u.text, role=r, aspect=a)
            for u, r, a in zip(units, roles, aspects, strict=True)
        ]
    )


@single_threaded_blas
def ground(premises: list[Unit]) -> GroundOutput:
    """Grounding 0/1/2 of each premise, judged on its own text."""
    model = load_model()
    # each premise is scored as a call of its own (no neighbours), all in one call
    labels = model.predict("grounding", model.scores_alone([u.text for u in premises])["grounding"])
    return GroundOutput(
        grounding_results=[
            GroundItem(index=u.index, premise=u.text, grounding_score=int(label))
            for u, label in zip(premises, labels, strict=True)
        ]
    )

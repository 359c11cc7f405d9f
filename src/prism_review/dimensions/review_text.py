"""Applying a dimension's text policy (prism-reference §2): what each dimension feeds the judge.

Each dimension declares its policy in its own module (``Dimension.text_policy``, a
:class:`~prism_review.systems.text_policy.TextPolicy`); ``review_text(review, dimension)`` looks
it up in the dimension registry and applies it. The built-in dimensions declare the clean
default recommended by the reference (§14.2):

| dimension | LLM systems and BYO (reviewer 1, ``<think>`` removed) | humans (per-venue formatter) |
|---|---|---|
| depth | Summary, Strengths, Weaknesses | ICML: every rubric text field; others: Summary, Strengths, Weaknesses |
| novelty | every text section (score, decision and meta sections left out) | every text field (one review; novelty's ``panel_text`` for the panel mode) |
| flaws | Summary, Weaknesses, Questions, Limitations when substantive | ICLR2024: Summary, Weaknesses, Questions; ICLR2025/26: + Limitations when substantive; ICML: every rubric field; NeurIPS: Summary, Strengths (labelled as possibly holding weaknesses), Weaknesses, Questions, Limitations when substantive |
| constructiveness | every text section, Summary/Strengths/Weaknesses/Questions first | every text field, the same four first |

ICML's flaw formatter is described as "10 rubric fields" without the list; every rubric text
field is used (the same in compat mode). Sections are matched by *family* (``Summary Of The
Paper`` is a summary, ``Questions For The Authors`` are questions; see
:func:`prism_review.systems.parsing.family`). Section boundaries are every recognised section
header (the REC fix of risk D3). Shared fallback: when none of the wanted sections exists, the
whole review text (after ``</think>``) is used.

Which reviews are human reviews (read with the per-venue formatter) and which have an original
extraction is the review's system's spec (:mod:`prism_review.systems.registry`). ``compat=True``
reproduces the original extraction (the spec's ``compat``: each built-in system's module holds its
own, on the extractors of :mod:`prism_review.systems.text_compat`) for the dimensions the original had (``TextPolicy.original``); BYO
systems and new dimensions have no original behaviour and always use the clean policy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from prism_review.records import Review, Section, render_sections
from prism_review.systems.parsing import SCORE_FAMILIES, family
from prism_review.systems.registry import find_system
from prism_review.systems.text_policy import AllText, Sections, Selection, TextPolicy
from prism_review.venues import get_venue

_NOT_TEXT = set(SCORE_FAMILIES) | {"meta"}
_SHORT_ANSWER = re.compile(r"^\s*(yes|no|n/?a|none|not applicable)\b[^\n]{0,80}$", re.I)


def substantive(text: str) -> bool:
    """A Limitations answer worth reading: not a bare yes/no/n/a and at least five words."""
    t = text.strip()
    return len(t.split()) >= 5 and not _SHORT_ANSWER.match(t)


def _select(
    sections: Iterable[Section], families: tuple[str, ...], *, substantive_limitations: bool = True
) -> list[Section]:
    out = []
    for sec in sections:
        fam = family(sec.name)
        if fam not in families:
            continue
        if fam == "limitations" and substantive_limitations and not substantive(sec.text):
            continue
        out.append(sec)
    return out


def _text_sections(sections: Iterable[Section], first: tuple[str, ...]) -> list[Section]:
    secs = [s for s in sections if family(s.name) not in _NOT_TEXT and s.text.strip()]
    if not first:
        return secs
    head = [s for f in first for s in secs if family(s.name) == f]
    return head + [s for s in secs if s not in head]


def _with_combined(sections: list[Section], picked: list[Section], sel: Sections) -> list[Section]:
    """``picked``, or, when it holds no weaknesses section, the same families with the review
    form's combined strengths-and-weaknesses field in their place (older ICLR forms:
    "Strength And Weaknesses", "Main Review"), so a review's critique is never dropped."""
    if any(family(s.name) == "weaknesses" for s in picked):
        return picked
    if not _select(sections, ("strengths_weaknesses",)):
        return picked
    wanted = tuple(f for f in sel.families if f not in {"strengths", "weaknesses"})
    families = (*wanted[:1], "strengths_weaknesses", *wanted[1:])
    return _select(sections, families, substantive_limitations=sel.substantive_limitations)


def _pick(sections: list[Section], sel: Selection) -> list[Section]:
    """The sections ``sel`` takes of a review."""
    if isinstance(sel, AllText):
        return _text_sections(sections, sel.first)
    picked = _select(sections, sel.families, substantive_limitations=sel.substantive_limitations)
    if sel.combined_fallback:
        picked = _with_combined(sections, picked, sel)
    if sel.labels:
        picked = [
            Section(name=sel.labels[f], text=s.text) if (f := family(s.name)) in sel.labels else s
            for s in picked
        ]
    return picked


def _whole(review: Review) -> str:
    body = review.extra.get("body")
    return str(body).strip() if isinstance(body, str) and body.strip() else review.text


def _render_or_whole(review: Review, picked: list[Section]) -> str:
    return render_sections(picked) if picked else _whole(review)


def policy_of(dimension: str) -> TextPolicy:
    """The text policy ``dimension`` declares (ValueError: unknown, or no policy)."""
    from prism_review.dimensions.base import dimension_class

    try:
        cls = dimension_class(dimension)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    if cls.text_policy is None:
        raise ValueError(f"dimension {dimension!r} declares no text policy")
    return cls.text_policy


def clean_text(review: Review, policy: TextPolicy) -> str:
    """The clean text ``policy`` takes of ``review`` (humans: the per-venue formatter)."""
    spec = find_system(review.system)
    human = spec is not None and spec.human
    venue = get_venue(review.venue).id if human else None
    return _render_or_whole(review, _pick(review.sections, policy.selection(review, venue)))


def review_text(review: Review, dimension: str, *, compat: bool = False) -> str:
    """The text ``dimension`` judges for ``review`` (clean by default, original with ``compat``).

    In compat mode a human review's novelty text is the original's panel text of the whole
    paper (all of its reviews), as the original evaluated humans as one panel.
    """
    policy = policy_of(dimension)
    clean = clean_text(review, policy)
    spec = find_system(review.system)
    if compat and policy.original and spec is not None and spec.compat is not None:
        return spec.compat(review, dimension, clean)
    return clean

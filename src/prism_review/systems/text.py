"""Per-dimension review-text policies (prism-reference §2): what each dimension feeds the judge.

``review_text(review, dimension)`` is the clean default recommended by the reference (§14.2):

| dimension | LLM systems and BYO (reviewer 1, ``<think>`` removed) | humans (per-venue formatter) |
|---|---|---|
| depth | Summary, Strengths, Weaknesses | ICML: every rubric text field; others: Summary, Strengths, Weaknesses |
| novelty | every text section (score, decision and meta sections left out) | every text field (one review; :func:`panel_text` for the panel mode) |
| flaws | Summary, Weaknesses, Questions, Limitations when substantive | ICLR2024: Summary, Weaknesses, Questions; ICLR2025/26: + Limitations when substantive; ICML: every rubric field; NeurIPS: Summary, Strengths (labelled as possibly holding weaknesses), Weaknesses, Questions, Limitations when substantive |
| constructiveness | every text section, Summary/Strengths/Weaknesses/Questions first | every text field, the same four first |

ICML's flaw formatter is described as "10 rubric fields" without the list; every rubric text
field is used (the same in compat mode). Sections are matched by *family* (``Summary Of The Paper`` is a summary, ``Questions For The
Authors`` are questions; see :func:`prism_review.systems.parsing.family`). Section boundaries
are every recognised section header (the REC fix of risk D3). Shared fallback: when none of the
wanted sections exists, the whole review text (after ``</think>``) is used.

``compat=True`` reproduces the original extraction (:mod:`prism_review.systems.text_compat`)
for the six built-in systems; BYO systems have no original behaviour and always use the clean
policy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from prism_review.records import Review, Section, render_sections
from prism_review.systems.parsing import SCORE_FAMILIES, family
from prism_review.systems.text_compat import compat_text, load_review_text
from prism_review.venues import get_venue

DIMENSIONS = ("depth", "novelty", "flaws", "constructiveness")
_BUILTIN = {"human", "sea", "reviewer2", "treereview", "deepreview", "cyclereview"}
_NOT_TEXT = set(SCORE_FAMILIES) | {"meta"}
_FIRST_FOUR = ("summary", "strengths", "weaknesses", "questions")
_SHORT_ANSWER = re.compile(r"^\s*(yes|no|n/?a|none|not applicable)\b[^\n]{0,80}$", re.I)
NEURIPS_STRENGTHS_LABEL = "Strengths (may also contain weaknesses)"


def substantive(text: str) -> bool:
    """A Limitations answer worth reading: not a bare yes/no/n/a and at least five words."""
    t = text.strip()
    return len(t.split()) >= 5 and not _SHORT_ANSWER.match(t)


def _select(sections: Iterable[Section], families: tuple[str, ...]) -> list[Section]:
    out = []
    for sec in sections:
        fam = family(sec.name)
        if fam not in families:
            continue
        if fam == "limitations" and not substantive(sec.text):
            continue
        out.append(sec)
    return out


def _text_sections(sections: Iterable[Section], *, first_four: bool) -> list[Section]:
    secs = [s for s in sections if family(s.name) not in _NOT_TEXT and s.text.strip()]
    if not first_four:
        return secs
    head = [s for f in _FIRST_FOUR for s in secs if family(s.name) == f]
    return head + [s for s in secs if s not in head]


def _with_combined(sections: list[Section], picked: list[Section], families: tuple[str, ...]) -> list[Section]:
    """``picked``, or, when it holds no weaknesses section, the same families with the review
    form's combined strengths-and-weaknesses field in their place (older ICLR forms:
    "Strength And Weaknesses", "Main Review"), so a review's critique is never dropped."""
    if any(family(s.name) == "weaknesses" for s in picked):
        return picked
    if not _select(sections, ("strengths_weaknesses",)):
        return picked
    wanted = tuple(f for f in families if f not in {"strengths", "weaknesses"})
    return _select(sections, (*wanted[:1], "strengths_weaknesses", *wanted[1:]))


def _whole(review: Review) -> str:
    body = review.extra.get("body")
    return str(body).strip() if isinstance(body, str) and body.strip() else review.text


def _render_or_whole(review: Review, picked: list[Section]) -> str:
    return render_sections(picked) if picked else _whole(review)


def human_text(review: Review, dimension: str) -> str:
    """The per-venue human formatter (risk D1/K5 fix) for ``dimension``."""
    venue = get_venue(review.venue).id
    secs = review.sections
    if dimension in {"novelty", "constructiveness"}:
        return _render_or_whole(review, _text_sections(secs, first_four=dimension != "novelty"))
    if venue == "ICML2025":
        return _render_or_whole(review, _text_sections(secs, first_four=False))
    if dimension == "depth":
        depth = ("summary", "strengths", "weaknesses")
        return _render_or_whole(review, _with_combined(secs, _select(secs, depth), depth))
    # flaws
    wanted: tuple[str, ...]
    if venue == "ICLR2024":
        wanted = ("summary", "weaknesses", "questions")
        picked = _with_combined(secs, _select(secs, wanted), wanted)
    elif venue == "NeurIPS2025":
        picked = []
        for sec in _select(
            secs, ("summary", "strengths", "weaknesses", "questions", "limitations")
        ):
            if family(sec.name) == "strengths":
                sec = Section(name=NEURIPS_STRENGTHS_LABEL, text=sec.text)
            picked.append(sec)
    else:
        wanted = ("summary", "weaknesses", "questions", "limitations")
        picked = _with_combined(secs, _select(secs, wanted), wanted)
    return _render_or_whole(review, picked)


def llm_text(review: Review, dimension: str) -> str:
    """The clean policy for an LLM or BYO review (sections already ``<think>``-free)."""
    secs = review.sections
    if dimension == "depth":
        picked = _select(secs, ("summary", "strengths", "weaknesses", "strengths_weaknesses"))
    elif dimension == "flaws":
        picked = _select(secs, ("summary", "weaknesses", "questions", "limitations"))
        if not any(family(s.name) == "weaknesses" for s in picked):
            combined = _select(secs, ("strengths_weaknesses",))
            if combined:
                picked = _select(
                    secs, ("summary", "strengths_weaknesses", "questions", "limitations")
                )
    else:
        picked = _text_sections(secs, first_four=dimension == "constructiveness")
    return _render_or_whole(review, picked)


def review_text(review: Review, dimension: str, *, compat: bool = False) -> str:
    """The text ``dimension`` judges for ``review`` (clean by default, original with ``compat``).

    In compat mode a human review's novelty text is the original's panel text of the whole
    paper (all of its reviews), as the original evaluated humans as one panel.
    """
    if dimension not in DIMENSIONS:
        raise ValueError(
            f"unknown dimension {dimension!r}; expected one of {', '.join(DIMENSIONS)}"
        )
    clean = (
        human_text(review, dimension) if review.system == "human" else llm_text(review, dimension)
    )
    if compat and review.system in _BUILTIN:
        return compat_text(review, dimension, clean)
    return clean


def panel_text(reviews: list[Review], venue: str, *, compat: bool = False) -> str:
    """Novelty's human panel mode (§5.1 rule 4): all of a paper's reviews as one text.

    Clean: each review's novelty text under a ``### Reviewer Human_k`` heading (no ratings, so
    no score text is mined as a claim). Compat: the original's rendering of the human file
    (``### Reviewer i (Rating: …)`` + ``## Key`` sections for the ICLR keys only).
    """
    get_venue(venue)  # validates the venue name
    if not reviews:
        return ""
    if compat:
        raw = reviews[0].extra.get("raw_text")
        if isinstance(raw, str) and raw.strip():
            return load_review_text(raw, is_txt=False)
    blocks = []
    for r in reviews:
        text = review_text(r, "novelty")
        if text.strip():
            blocks.append(f"### Reviewer {r.reviewer_id}\n\n{text}")
    return "\n\n".join(blocks)

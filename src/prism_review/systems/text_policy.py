"""A dimension's text policy: which sections of a review it feeds the judge, as data.

Each dimension declares one :class:`TextPolicy` in its own module (``Dimension.text_policy``);
:func:`prism_review.dimensions.review_text.review_text` applies it. A policy says what to take from an LLM
or bring-your-own review (``llm``), from a human review (``human``), and, per venue, where a
venue's human review form needs its own reading (``human_venues``, keyed by venue id). Sections
are matched by *family* (:func:`prism_review.systems.parsing.family`), so ``Summary Of The
Paper`` is a summary and ``Questions For The Authors`` are questions.

Two kinds of selection:

* :class:`Sections` — the sections of the named families, in the review's own order;
* :class:`AllText` — every text section (scores, decision and meta sections left out),
  optionally with some families first.

When a selection finds nothing, the whole review text (after ``</think>``) is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from prism_review.records import Review

#: the families :class:`AllText` puts first for constructiveness, in this order
FIRST_FOUR = ("summary", "strengths", "weaknesses", "questions")


@dataclass(frozen=True)
class Sections:
    """The sections of ``families``, in the review's order.

    * ``combined_fallback``: when no weaknesses section is picked and the review form has a
      combined strengths-and-weaknesses field (older ICLR forms: "Strength And Weaknesses",
      "Main Review"), that field stands in for strengths and weaknesses, so a review's critique
      is never dropped;
    * ``substantive_limitations``: a Limitations section only when substantive (not a bare
      yes/no/n/a, at least five words);
    * ``labels``: family → heading shown instead of the section's own name.
    """

    families: tuple[str, ...]
    combined_fallback: bool = False
    substantive_limitations: bool = True
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class AllText:
    """Every text section (score, decision and meta sections left out); ``first`` families
    lead, in that order, the rest follow in the review's order."""

    first: tuple[str, ...] = ()


Selection = Sections | AllText


@dataclass(frozen=True)
class TextPolicy:
    """What a dimension reads of each review.

    * ``llm``: LLM systems and bring-your-own reviews (reviewer 1, ``<think>`` removed);
    * ``human``: human reviews (the per-venue formatter's default);
    * ``human_venues``: venue id → the selection used for that venue's human reviews instead;
    * ``original``: the original PRISM code had an extraction for this dimension, which
      ``--compat`` reproduces (each system spec's ``compat``); a dimension without one
      reads the clean text under ``--compat`` too.
    """

    llm: Selection
    human: Selection
    human_venues: Mapping[str, Selection] = field(default_factory=lambda: MappingProxyType({}))
    original: bool = False

    def selection(self, review: Review, venue: str | None) -> Selection:
        """The selection for ``review`` (``venue``: a human review's canonical venue id; None for
        the review of a system that is not read as human reviews, see ``SystemSpec``)."""
        if venue is None:
            return self.llm
        return self.human_venues.get(venue or "", self.human)

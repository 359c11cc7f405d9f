"""Who a flaw unit's review is pooled with: the human panel, or other systems (``flaws.reference``).

PRISM pools a paper's human reviews (``Human_<k>``, k = the review's 1-based position, empty
reviews dropped without renumbering) with one LLM system's review (``LLM_Reviewer``). A paper
with no usable human review is, under ``flaws.reference = human_else_panel`` (the default),
scored against the OTHER systems' reviews of the paper (``Panel_<k>``, k = 1-based position among
the other systems sorted by id): every other system present in the data, whatever ``--system``
selects, so a system's figures do not depend on which others are being evaluated. Such rows say
``extracted["reference"] == "panel"`` and are summarised as ``<system>@panel``.
``flaws.reference = human`` reproduces PRISM: those papers get one ``skipped`` row per system.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prism_review.dimensions.base import RunContext, WorkUnit
from prism_review.dimensions.review_text import review_text as text_policy
from prism_review.metrics.cfi import LLM_ID, human_id, panel_id
from prism_review.records import Paper, Review

HUMAN = "human"
#: ``flaws.reference`` values: PRISM's human reference only, or the other systems as a fallback
REFERENCE_HUMAN = "human"
REFERENCE_HUMAN_ELSE_PANEL = "human_else_panel"
REFERENCE_OPTIONS = (REFERENCE_HUMAN, REFERENCE_HUMAN_ELSE_PANEL)
DEFAULT_REFERENCE = REFERENCE_HUMAN_ELSE_PANEL
#: summary-group suffix of rows scored against a panel of other systems
PANEL_GROUP_SUFFIX = "@panel"

#: one pooled reviewer: (pool id, review, flaw-dimension text)
Member = tuple[str, Review, str]


def reference_setting(ctx: RunContext) -> str:
    """The run's ``flaws.reference`` setting (unknown values raise: never guess a reference)."""
    value = str(ctx.setting("flaws.reference", DEFAULT_REFERENCE))
    if value not in REFERENCE_OPTIONS:
        raise ValueError(
            f"flaws.reference must be one of {', '.join(REFERENCE_OPTIONS)}; got {value!r}"
        )
    return value


def review_text(review: Review, compat: bool) -> str:
    """The flaw-dimension text of a review (the per-dimension policy of :mod:`prism_review.dimensions.review_text`)."""
    return text_policy(review, "flaws", compat=compat)


def present_systems(reviews: dict[str, list[Review]]) -> list[str]:
    """The non-human systems with a non-empty review of the paper, sorted by id."""
    return sorted(s for s, rs in reviews.items() if s != HUMAN and rs and rs[0].text.strip())


def paper_reviews(reviews: dict[str, list[Review]]) -> list[Review]:
    """Every review a paper's flaw units can pool: the humans, then each system's first review
    (systems sorted by id). The economical protocol consolidates these once per paper."""
    humans = list(reviews.get(HUMAN, []))
    systems = sorted(s for s, rs in reviews.items() if s != HUMAN and rs)
    return [*humans, *(reviews[s][0] for s in systems)]


def panel_units(
    paper: Paper, reviews: dict[str, list[Review]], systems: list[str], base: str
) -> Iterable[WorkUnit]:
    """One panel unit per selected system with a review, when another system has one too.

    The panel is every other system of ``reviews`` (all systems present, not only the selected
    ones) with a non-empty review, sorted by system id; the evaluated review comes last.
    """
    present = present_systems(reviews)
    everyone = paper_reviews(reviews)
    for system in systems:
        if system not in present:
            continue
        panel = [s for s in present if s != system]
        if not panel:
            continue
        yield WorkUnit(
            key=f"{base}/{system}/panel",
            venue=paper.venue,
            paper_id=paper.paper_id,
            system=system,
            paper=paper,
            reviews=[*(reviews[s][0] for s in panel), reviews[system][0]],
            extra={"pairing": None, "reference": "panel", "paper_reviews": everyone},
        )


def unit_reference(unit: WorkUnit) -> str:
    """``human`` or ``panel``: what the unit's evaluated review is pooled with."""
    return "panel" if unit.extra.get("reference") == "panel" else REFERENCE_HUMAN


def reference_info(unit: WorkUnit, members: list[Member], setting: str) -> dict[str, Any]:
    """What a row records about its reference: kind, the run setting and the panel's systems."""
    info: dict[str, Any] = {"reference": unit_reference(unit), "reference_setting": setting}
    if info["reference"] == "panel":
        info["panel"] = {pid: r.system for pid, r, _ in members if pid != LLM_ID}
    return info


def pool(unit: WorkUnit, compat: bool) -> list[Member]:
    """(pool id, review, text) for the unit's reviewers.

    Humans are ``Human_k`` and panel members ``Panel_k`` (k = 1-based position, kept when an
    empty review is dropped); the evaluated system's review is ``LLM_Reviewer``.
    """
    panel = unit_reference(unit) == "panel"
    out: list[Member] = []
    k = 0
    for i, r in enumerate(unit.reviews):
        own = (i == len(unit.reviews) - 1) if panel else r.system != HUMAN
        if own:
            pid = LLM_ID
        else:
            k += 1
            pid = panel_id(k) if panel else human_id(k)
        text = review_text(r, compat)
        if text.strip():
            out.append((pid, r, text))
    return out

"""The offline judge's fidelity card: how far each Table-1 metric can be read against PRISM.

The card is data (``resources/fidelity_card.json``), measured and shipped with the package. Each
entry puts one metric of the offline judge in one class:

* ``comparable``: comparable to PRISM's scale (the value can be read against the paper's);
* ``ranking_only``: orders systems as PRISM's construct does, but the absolute level differs;
* ``not_informative``: does not measure PRISM's construct offline.

with the figure that puts it there, the command that measures it, and whether the entry is
``measured`` or ``provisional`` (taken from the best current evidence, awaiting its owner's
measurement). This module loads and checks the card and renders it for the console,
``summary.md``, the HTML report and ``prism agreement --dataset all``.
"""

from __future__ import annotations

from typing import Any

from prism_review.pipelines.summary import headline_specs
from prism_review.report.card_model import (  # noqa: F401  (the card's model lives there; re-exported)
    CARD_FILE,
    CLASSES,
    MARKERS,
    STATUSES,
    Card,
    CardError,
    Entry,
    card_path,
    load_card,
    parse_card,
)


def is_offline(manifest: dict[str, Any]) -> bool:
    """Whether a run's manifest says the offline judge produced it."""
    from prism_review.report.judge_card import judge_name

    return judge_name(manifest) == "offline"


def not_comparable(columns: list[tuple[str, str]], card: Card | None = None) -> list[tuple[str, Entry | None]]:
    """For Table-1 ``columns`` ((dimension, metric) pairs): those not comparable to the paper's
    numbers, each with its card entry (None: the card has no entry, so nothing vouches for it)."""
    card = card or load_card()
    out: list[tuple[str, Entry | None]] = []
    for dim, metric in columns:
        e = card.get(dim, metric)
        if e is None or not e.comparable:
            out.append((f"{dim}.{metric}", e))
    return out


def table1_note(columns: list[tuple[str, str]], card: Card | None = None) -> list[str]:
    """Plain-text lines printed under Table 1 of an offline-judge run (empty: all comparable)."""
    rows = not_comparable(columns, card)
    if not rows:
        return []
    lines = ["Offline judge: these Table-1 columns are not comparable to the PRISM paper's numbers "
             "(fidelity card, `prism agreement --dataset all`):"]
    for key, e in rows:
        if e is None:
            lines.append(f"- {key}: no fidelity-card entry (unmeasured)")
            continue
        tag = "" if e.status == "measured" else " [provisional]"
        lines.append(f"- {e.label}{MARKERS.get(e.cls, '')}: {CLASSES[e.cls]}{tag}. {e.figure}")
    return lines


def render_card(card: Card | None = None, source: str | None = None) -> str:
    """The whole card as plain text (``prism agreement --dataset all``); ``source``: its file
    (default: the shipped one)."""
    card = card or load_card()
    lines = [f"{'Fidelity' if source is None else 'Judge'} card of the {card.judge} judge ({source or 'resources/' + CARD_FILE})"]
    if card.rule:
        lines.append(f"Rule: {card.rule}")
    for e in card.entries:
        tag = "measured" if e.status == "measured" else f"provisional, owner {e.owner}"
        lines += [
            f"- {e.dimension}.{e.metric} ({e.label}): {e.cls} [{tag}]",
            f"    {e.figure}",
            f"    measured by: {e.command}",
        ]
    return "\n".join(lines)


def table1_columns(dims: list[Any]) -> list[tuple[str, str]]:
    """The (dimension, metric) pairs of Table 1 for these dimensions."""
    return [(d.name, s.key) for d in dims for s in headline_specs(d)]


#: under Table 1 when the flaws dimension is in the run: where PRISM itself is not invariant
FLAWS_HUMAN_NOTE = (
    "- flaws `human` row: the mean over the human panel's pairings with each LLM system of the run, so by "
    "PRISM's definition it depends on which systems are in the run; `human-only-bank` is the invariant human figure"
)
#: under Table 1 of a run whose protocol pools several reviews into one call
POOLED_NOTE = (
    "- --protocol pooled: judge calls hold several reviews, so every score here depends on what else is in "
    "the run (other systems, papers, --limit, the source's order); the default economical protocol does not"
)


def invariance_note(manifest: dict[str, Any], dims: list[Any]) -> list[str]:
    """The lines saying which Table-1 figures depend on what else is in the run: every score
    under a selection-dependent protocol with an LLM judge (pooled), and the flaws human row."""
    from prism_review.dimensions.protocol import SELECTION_DEPENDENT

    lines = []
    if (manifest.get("protocol") in SELECTION_DEPENDENT and not is_offline(manifest)
            and not manifest.get("compat")):
        lines.append(POOLED_NOTE)
    if any(getattr(d, "name", None) == "flaws" for d in dims):
        lines.append(FLAWS_HUMAN_NOTE)
    return lines


def run_note(manifest: dict[str, Any], dims: list[Any]) -> list[str]:
    """The note under a run's Table 1: a heading line, then ``- `` items: the card's lines for
    an offline-judge run, then :func:`invariance_note`'s (empty: nothing to say)."""
    if is_offline(manifest):
        from prism_review.report.judge_card import run_card, run_card_file

        given = run_card(manifest) if run_card_file(manifest) else None  # --card: that card's lines
        card = table1_note(table1_columns(dims), given)
    else:
        from prism_review.report.judge_card import judge_note

        card = judge_note(manifest, dims) if dims else []
    extra = invariance_note(manifest, dims)
    from prism_review.report.judge_card import legend, table_marks

    key = legend(table_marks(manifest)) if card else None
    if key:
        card = [card[0], f"- {key}", *card[1:]]
    if not extra:
        return card
    return [*card, *extra] if card else ["Reading Table 1:", *extra]

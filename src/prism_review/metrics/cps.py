"""Critique prioritisation: CPS, iCPS, nCPS per section and overall, CPS_norm (spec §6.6).

A review's mentions of the valid-issue bank are scored like a ranked list: within each of the
review's own sections, the i-th item (0-based, zero-weight items removed first) contributes
``w_i / log2(i + 2)`` with weights Critical 2, Minor 1, anything else 0. iCPS is the same sum with
the section's weights sorted descending, so ``nCPS = ΣCPS / ΣiCPS`` is 1 exactly when every
critical mention precedes every minor one in each section.

When iCPS is 0 the review mentions no valid flaw, so there is no ordering to judge: nCPS is
None (spec §14.4, revised) and the row is counted apart as "no valid flaw"; ``compat=True``
gives the original's 0.

Mentions are re-ordered by where their anchor quote really sits in the review (exact search,
then a fuzzy sliding window accepted at ratio ≥ 0.45, then the same on the paraphrase, else
the end), because the mapper's listing order is not trusted.

All functions are pure; dictionaries use the original field names so results stay comparable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

#: points per severity; anything else weighs 0
SEVERITY_WEIGHTS: dict[str, float] = {"Critical": 2.0, "Minor": 1.0, "None": 0.0}
DEFAULT_SECTION = "Weaknesses"
FUZZY_THRESHOLD = 0.45


def weight(severity: Any) -> float:
    """Weight of one severity label (exact labels; unknown or missing → 0)."""
    return SEVERITY_WEIGHTS.get(severity, 0.0) if isinstance(severity, str) else 0.0


def section_of(arg: Mapping[str, Any]) -> str:
    """The (stripped, case-sensitive) section of a mention; blank or missing → Weaknesses."""
    name = arg.get("section_name")
    name = name.strip() if isinstance(name, str) else ""
    return name or DEFAULT_SECTION


def group_by_section(args: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Group mentions by section, sections in first-appearance order, items in given order."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for a in args:
        groups.setdefault(section_of(a), []).append(a)
    return groups


def dcg(weights: Sequence[float]) -> float:
    """Σ w_i / log2(i + 2) over the non-zero weights, in the given order."""
    kept = [w for w in weights if w > 0]
    return sum(w / math.log2(i + 2) for i, w in enumerate(kept))


def _section_weights(items: Sequence[Mapping[str, Any]]) -> list[float]:
    return [weight(a.get("severity")) for a in items]


def calculate_cps(args: Sequence[Mapping[str, Any]]) -> float:
    """Raw CPS: the sum over sections of the DCG in presentation order (unrounded)."""
    return sum(dcg(_section_weights(v)) for v in group_by_section(args).values())


def calculate_icps(args: Sequence[Mapping[str, Any]]) -> float:
    """Ideal CPS: the sum over sections of the DCG with weights sorted descending (unrounded)."""
    return sum(
        dcg(sorted(_section_weights(v), reverse=True)) for v in group_by_section(args).values()
    )


def ratio(cps: float, icps: float, *, compat: bool = False) -> float | None:
    """nCPS from its parts, rounded to 4; when iCPS is 0, None (compat: 0.0)."""
    if icps > 0:
        return round(cps / icps, 4)
    return 0.0 if compat else None


def calculate_ncps(args: Sequence[Mapping[str, Any]], *, compat: bool = False) -> float | None:
    """nCPS = CPS / iCPS rounded to 4; when iCPS is 0, None (compat: 0.0)."""
    return ratio(calculate_cps(args), calculate_icps(args), compat=compat)


def section_breakdown(
    args: Sequence[Mapping[str, Any]], *, compat: bool = False
) -> list[dict[str, Any]]:
    """Per-section ``{section, n_args, CPS_s, ICPS_s, nCPS_s}`` sorted by n_args descending.

    ``n_args`` counts zero-weight mentions too; ties keep first-appearance order; ``nCPS_s`` of
    a section without a weighted mention is None (compat: 0.0).
    """
    rows: list[dict[str, Any]] = []
    for name, items in group_by_section(args).items():
        ws = _section_weights(items)
        c, ic = dcg(ws), dcg(sorted(ws, reverse=True))
        rows.append(
            {
                "section": name,
                "n_args": len(items),
                "CPS_s": round(c, 4),
                "ICPS_s": round(ic, 4),
                "nCPS_s": ratio(c, ic, compat=compat),
            }
        )
    rows.sort(key=lambda r: -r["n_args"])
    return rows


# --- position recovery -------------------------------------------------------------------


def find_position_exact(anchor: str, text: str) -> int | None:
    """Offset of the first case-insensitive literal occurrence of ``anchor``, or None."""
    if not anchor or not text:
        return None
    m = re.search(re.escape(anchor), text, flags=re.IGNORECASE)
    return m.start() if m else None


def find_position_fuzzy(anchor: str, text: str, threshold: float = FUZZY_THRESHOLD) -> int | None:
    """Start of the best-matching window (SequenceMatcher ratio ≥ ``threshold``), or None.

    Lower-cased; window ``max(L, int(1.6 L))``, step ``max(1, L // 4)`` for anchor length L; the
    first best window wins. The start lies on the step grid, so it may precede the true offset.
    """
    if not anchor or not text:
        return None
    a, t = anchor.lower(), text.lower()
    n = len(a)
    win, step = max(n, int(1.6 * n)), max(1, n // 4)
    limit = max(1, len(t) - n + 1)
    best, best_at = -1.0, None
    for start in range(0, limit, step):
        r = SequenceMatcher(None, a, t[start : start + win]).ratio()
        if r > best:
            best, best_at = r, start
    return best_at if best >= threshold else None


def locate(arg: Mapping[str, Any], text: str) -> int | None:
    """Where a mention sits in ``text``: exact anchor, fuzzy anchor, fuzzy content, else None."""
    anchor = (arg.get("anchor_quote") or "").strip()
    content = (arg.get("content") or "").strip()
    pos = find_position_exact(anchor, text)
    if pos is None:
        pos = find_position_fuzzy(anchor, text)
    if pos is None:
        pos = find_position_fuzzy(content, text)
    return pos


def reorder_by_position(args: Sequence[Mapping[str, Any]], review_text: str) -> list[Any]:
    """Sort mentions by their recovered position (unmatched last), ties by original index."""
    if not review_text:
        return list(args)
    end = len(review_text) + 1
    keyed = []
    for i, a in enumerate(args):
        pos = locate(a, review_text)
        keyed.append((end if pos is None else pos, i, a))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [a for _, _, a in keyed]


# --- issue bank, per-review scoring, paper level -----------------------------------------


def build_issue_bank(
    micro_flaws: Sequence[Mapping[str, Any]], evaluations: Mapping[str, Any]
) -> list[dict[str, str]]:
    """The valid-issue bank: flaws whose evaluation has ``is_valid is True`` (strictly) and a
    Critical/Minor severity, as ``{issue_id, shared_severity, canonical_summary, macro_topic}``.
    """
    bank = []
    for f in micro_flaws:
        fid = f.get("flaw_id")
        if not fid:
            continue
        ev = evaluations.get(fid)
        if not isinstance(ev, Mapping) or ev.get("is_valid") is not True:
            continue
        sev = ev.get("severity")
        if sev not in ("Critical", "Minor"):
            continue
        bank.append(
            {
                "issue_id": fid,
                "shared_severity": sev,
                "canonical_summary": (f.get("core_summary") or "").strip(),
                "macro_topic": (f.get("macro_topic") or "").strip(),
            }
        )
    return bank


def attach_mentions(
    mentions: Any, bank: Sequence[Mapping[str, str]], review_text: str
) -> list[dict[str, Any]]:
    """Turn a mapper's mentions into scored arguments in true review order.

    Unknown, empty and repeated issue ids are dropped (first kept; ids are stripped). Severity,
    summary and topic come from the bank; a missing section is Weaknesses, missing content the
    bank summary.
    """
    by_id = {b["issue_id"]: b for b in bank}
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for m in mentions if isinstance(mentions, list) else []:
        if not isinstance(m, Mapping):
            continue
        iid = str(m.get("issue_id") or "").strip()
        if not iid or iid not in by_id or iid in seen:
            continue
        seen.add(iid)
        issue = by_id[iid]
        section = m.get("section_name")
        out.append(
            {
                "issue_id": iid,
                "section_name": section.strip()
                if isinstance(section, str) and section.strip()
                else DEFAULT_SECTION,
                "anchor_quote": m.get("anchor_quote") or "",
                "content": m.get("content") or issue["canonical_summary"],
                "severity": issue["shared_severity"],
                "canonical_summary": issue["canonical_summary"],
                "macro_topic": issue["macro_topic"],
            }
        )
    return reorder_by_position(out, review_text)


def review_metrics(
    reviewer_id: str, args: Sequence[Mapping[str, Any]], *, compat: bool = False
) -> dict[str, Any]:
    """One reviewer's CPS row: Raw_CPS and ICPS rounded to 4, nCPS (None when iCPS is 0 unless
    ``compat``), counts and breakdown."""
    cps, icps = calculate_cps(args), calculate_icps(args)
    return {
        "Reviewer_ID": reviewer_id,
        "Raw_CPS": round(cps, 4),
        "ICPS": round(icps, 4),
        "nCPS": ratio(cps, icps, compat=compat),
        "Total_Arguments": len(args),
        "Critical_Count": sum(1 for a in args if a.get("severity") == "Critical"),
        "Minor_Count": sum(1 for a in args if a.get("severity") == "Minor"),
        "Section_Breakdown": section_breakdown(args, compat=compat),
    }


def score_review(
    reviewer_id: str,
    review_text: str,
    bank: Sequence[Mapping[str, str]],
    mapping: Any,
    *,
    compat: bool = False,
) -> dict[str, Any]:
    """``{reviewer_id, arguments, metrics}`` for one review from a parsed mapper reply.

    An empty bank gives no mention whatever the reply says (no mapping call is needed): CPS 0
    and nCPS None (compat: 0).
    """
    mentions = mapping.get("mentions") if isinstance(mapping, Mapping) and bank else None
    args = attach_mentions(mentions, bank, review_text)
    return {
        "reviewer_id": reviewer_id,
        "arguments": args,
        "metrics": review_metrics(reviewer_id, args, compat=compat),
    }


def add_cps_norm(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add ``CPS_norm`` = min-max of the (4-dp) Raw_CPS values within the paper.

    With a zero range every row gets 1.0 if its Raw_CPS > 0, else 0.0. Rows are returned sorted
    by (nCPS, Raw_CPS) descending, stable; a None nCPS sorts last.
    """
    raws = [r["Raw_CPS"] for r in rows]
    lo, hi = (min(raws), max(raws)) if raws else (0.0, 0.0)
    for r in rows:
        if hi - lo > 0:
            r["CPS_norm"] = round((r["Raw_CPS"] - lo) / (hi - lo), 4)
        else:
            r["CPS_norm"] = 1.0 if r["Raw_CPS"] > 0 else 0.0
    return sorted(
        rows, key=lambda r: (-r["nCPS"] if r["nCPS"] is not None else 1.0, -r["Raw_CPS"])
    )


def paper_cps(
    bank: Sequence[Mapping[str, str]],
    reviews: Mapping[str, str],
    mappings: Mapping[str, Any],
    *,
    compat: bool = False,
) -> dict[str, Any]:
    """The paper-level CPS block: ``{Severity_Map, Canonical_Issue_Bank, Reviewer_Rankings}``.

    ``reviews`` maps reviewer id → review text (insertion order is the tie order), ``mappings``
    reviewer id → parsed mapper reply.
    """
    rows = [
        score_review(rid, text, bank, mappings.get(rid), compat=compat)["metrics"]
        for rid, text in reviews.items()
    ]
    return {
        "Severity_Map": dict(SEVERITY_WEIGHTS),
        "Canonical_Issue_Bank": {"issues": [dict(b) for b in bank]},
        "Reviewer_Rankings": add_cps_norm(rows),
    }

"""Consensus flaw identification (CFI): severity recalls, consensus weights, hallucination rate.

Spec §6.5. The valid set V holds the flaws whose evaluation has a truthy ``is_valid`` and a
severity of exactly ``Critical`` or ``Minor``; C and M are its critical and minor parts. A flaw's
consensus weight is ``W_i = C_i / N`` with ``C_i`` the number of non-empty quotes in its
``raw_arguments`` and ``N`` the pool size (#humans + 1). For a reviewer with detected flaws D:

* ``Critical_Recall = |D∩C| / |C|`` (null when C is empty), Minor analogous;
* ``*_ConsensusWeighted = Σ_{D∩C} W / Σ_C W`` (null when the denominator is 0);
* ``Hallucination_Rate = |D ∩ judged invalid| / |D ∩ judged|`` (null when nothing was detected).

Reviewer keys are matched exactly after normalisation (``Human_(\\d+)`` → ``Human_<int>``,
``Panel_(\\d+)`` → ``Panel_<int>`` for the other-systems reference panel, LLM aliases →
``LLM_Reviewer``), and only a non-empty quote earns credit (risk F3). ``compat=True`` reproduces
the original substring matching and key-presence credit for ``Human_k`` and ``LLM_Reviewer``
(the original has no panel: ``Panel_k`` keys are matched exactly in both modes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

LLM_ID = "LLM_Reviewer"
SEVERITY_POINTS: dict[str, float] = {"Critical": 2.0, "Minor": 1.0, "None": 0.0}

_HUMAN = re.compile(r"^\s*human[\s_-]*0*(\d+)\s*$", re.IGNORECASE)
_PANEL = re.compile(r"^\s*panel[\s_-]*0*(\d+)\s*$", re.IGNORECASE)
_LLM = re.compile(r"^\s*(llm|sea)([\s_-]*(reviewer|review))?\s*$", re.IGNORECASE)


def human_id(k: int) -> str:
    """The pool id of the k-th (1-based) human reviewer."""
    return f"Human_{k}"


def panel_id(k: int) -> str:
    """The pool id of the k-th (1-based) member of an other-systems reference panel."""
    return f"Panel_{k}"


def normalize_reviewer_key(key: Any) -> str:
    """Canonical id: ``Human_<int>``, ``Panel_<int>``, ``LLM_Reviewer``, else the stripped key."""
    text = str(key or "").strip()
    m = _HUMAN.match(text)
    if m:
        return human_id(int(m.group(1)))
    m = _PANEL.match(text)
    if m:
        return panel_id(int(m.group(1)))
    if _LLM.match(text):
        return LLM_ID
    return text


def _has_quote(q: Any) -> bool:
    return isinstance(q, str) and bool(q.strip())


def _compat_key_matches(key: str, reviewer_id: str) -> bool:
    """The original rule: LLM ← any key containing llm/sea; Human_k ← any key containing k."""
    low = key.lower()
    if reviewer_id == LLM_ID:
        return "llm" in low or "sea" in low
    m = re.match(r"^Human_(\d+)$", reviewer_id)
    return m is not None and m.group(1) in key


def detected_flaws(
    micro_flaws: Sequence[Mapping[str, Any]], reviewer_id: str, *, compat: bool = False
) -> set[str]:
    """Ids of the flaws credited to ``reviewer_id`` (validity not applied)."""
    rid = normalize_reviewer_key(reviewer_id)
    out: set[str] = set()
    for f in micro_flaws:
        fid = f.get("flaw_id")
        args = f.get("raw_arguments") or {}
        if not fid or not isinstance(args, Mapping):
            continue
        for key, quote in args.items():
            if compat and not rid.startswith("Panel_"):
                hit = _compat_key_matches(str(key), reviewer_id)
            else:
                hit = normalize_reviewer_key(key) == rid and _has_quote(quote)
            if hit:
                out.add(fid)
                break
    return out


def consensus_count(flaw: Mapping[str, Any]) -> int:
    """Number of reviewers quoted (non-empty after strip) for one flaw."""
    args = flaw.get("raw_arguments") or {}
    return sum(1 for q in args.values() if _has_quote(q)) if isinstance(args, Mapping) else 0


def is_valid_eval(ev: Any) -> bool:
    """CFI validity: truthy ``is_valid`` and severity exactly Critical or Minor."""
    return (
        isinstance(ev, Mapping)
        and bool(ev.get("is_valid"))
        and ev.get("severity") in ("Critical", "Minor")
    )


class FlawSets:
    """The valid critical and minor flaws of one paper with their consensus weights."""

    def __init__(
        self,
        micro_flaws: Sequence[Mapping[str, Any]],
        evaluations: Mapping[str, Any],
        total_reviewers: int,
    ) -> None:
        self.weights: dict[str, dict[str, Any]] = {}
        self.critical: list[str] = []
        self.minor: list[str] = []
        self.judged: set[str] = set()
        self.invalid: set[str] = set()
        for f in micro_flaws:
            fid = f.get("flaw_id")
            if not fid or fid not in evaluations:
                continue
            self.judged.add(fid)
            ev = evaluations[fid]
            if not is_valid_eval(ev):
                self.invalid.add(fid)
                continue
            c = consensus_count(f)
            w = c / total_reviewers if total_reviewers > 0 else 0.0
            sev = ev["severity"]
            self.weights[fid] = {"weight": w, "severity": sev, "consensus_count": c}
            (self.critical if sev == "Critical" else self.minor).append(fid)

    def total_weight(self, ids: Sequence[str]) -> float:
        return sum(self.weights[i]["weight"] for i in ids)


def _rate(num: float, den: float) -> float | None:
    return round(num / den, 4) if den > 0 else None


def reviewer_scores(
    sets: FlawSets,
    micro_flaws: Sequence[Mapping[str, Any]],
    reviewer_id: str,
    *,
    compat: bool = False,
) -> dict[str, Any]:
    """One reviewer's recall row (original field names) plus ``Hallucination_Rate``."""
    det = detected_flaws(micro_flaws, reviewer_id, compat=compat)
    dc = [i for i in sets.critical if i in det]
    dm = [i for i in sets.minor if i in det]
    wc, wm = sets.total_weight(dc), sets.total_weight(dm)
    judged = det & sets.judged
    return {
        "Reviewer_ID": reviewer_id,
        "Critical_Recall": _rate(len(dc), len(sets.critical)),
        "Minor_Recall": _rate(len(dm), len(sets.minor)),
        "Critical_Recall_ConsensusWeighted": _rate(wc, sets.total_weight(sets.critical)),
        "Minor_Recall_ConsensusWeighted": _rate(wm, sets.total_weight(sets.minor)),
        "Detected_Critical_Flaws": len(dc),
        "Detected_Minor_Flaws": len(dm),
        "Detected_Critical_ConsensusWeight": round(wc, 4),
        "Detected_Minor_ConsensusWeight": round(wm, 4),
        "Total_Valid_Flaws_Found": len(dc) + len(dm),
        "Hallucination_Rate": _rate(len(judged & sets.invalid), len(judged)),
    }


def _rank_key(r: Mapping[str, Any]) -> tuple[float, ...]:
    def v(x: Any) -> float:
        return -1.0 if x is None else float(x)

    return tuple(
        -v(r[k])
        for k in (
            "Critical_Recall_ConsensusWeighted",
            "Minor_Recall_ConsensusWeighted",
            "Critical_Recall",
            "Minor_Recall",
            "Detected_Critical_Flaws",
            "Detected_Minor_Flaws",
        )
    )


def cfi_report(
    micro_flaws: Sequence[Mapping[str, Any]],
    evaluations: Mapping[str, Any],
    total_reviewers: int,
    human_ids: Sequence[str],
    *,
    compat: bool = False,
    include_llm: bool = True,
) -> dict[str, Any]:
    """The paper's CFI block: severity points, flaw weights, ground truth and rankings.

    Rankings hold ``LLM_Reviewer`` (unless ``include_llm`` is False, for a human-only bank) then
    the humans in the given order, sorted by (CR_CW, MR_CW, CR, MR, #crit, #minor) descending with
    null as −1 (stable).
    """
    sets = FlawSets(micro_flaws, evaluations, total_reviewers)
    ids = ([LLM_ID] if include_llm else []) + list(human_ids)
    rows = [reviewer_scores(sets, micro_flaws, rid, compat=compat) for rid in ids]
    rows.sort(key=_rank_key)
    return {
        "Severity_Points": dict(SEVERITY_POINTS),
        "Flaw_Weights_Summary": sets.weights,
        "Ground_Truth_Summary": {
            "Total_Valid_Flaws": len(sets.critical) + len(sets.minor),
            "Total_Critical_Flaws": len(sets.critical),
            "Total_Minor_Flaws": len(sets.minor),
            "Total_Critical_ConsensusWeight": round(sets.total_weight(sets.critical), 4),
            "Total_Minor_ConsensusWeight": round(sets.total_weight(sets.minor), 4),
        },
        "Reviewer_Rankings": rows,
    }

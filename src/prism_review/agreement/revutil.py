"""``prism agreement --dataset revutil``: the constructiveness judge vs RevUtil's human labels.

Each RevUtil review point is scored as exactly one comment (the ARC step's score-only mode, so
the same path serves the offline judge and LLM judges). Reported:

* ``revutil.actionability.spearman``: judge D1 vs the majority actionability label (1–5);
* ``revutil.grounding_specificity.spearman``: D2 vs grounding_specificity;
* ``revutil.verifiability.spearman``: D3 vs verifiability on points with a numeric label;
  points labelled ``X`` ("no claim") are reported apart: ``revutil.verifiability.mean_d3_x``
  vs ``revutil.verifiability.mean_d3_claims``;
* ``revutil.tone.accuracy``: D5 ≥ 1 ↔ professional_tone = 1;
* ``revutil.solution.spearman_vs_actionability`` and the mean D4 of points with actionability
  4–5 vs 1–2 (RevUtil has no solution label; this is the check of the rule-built D4);
* ``revutil.helpfulness.spearman_clc``: CLC (sum of D1–D5 / 10) vs helpfulness;
* the length baseline of each of the three aspects, on the same points as its Spearman:
  ``revutil.<aspect>.word_count_spearman`` (the point's word count alone vs the label) and
  ``revutil.<aspect>.minus_word_count`` (the judge's Spearman minus it: what the judge knows
  beyond length; issue 12 asks for at least 0.05).

Counts under ``n.*``; points whose judge step failed are counted in ``n.unscored``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from prism_review import progress
from prism_review.agreement import register_dataset
from prism_review.data.jsonl import read_jsonl
from prism_review.judge.base import Judge
from prism_review.judge.constructiveness.arc import ARCInput, ARCStep

Metrics = dict[str, float | int | None]


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def _spearman(a: list[float], b: list[float]) -> float | None:
    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    from scipy.stats import spearmanr

    r = float(spearmanr(a, b)[0])
    return None if math.isnan(r) else round(r, 4)


def _mean(v: list[float]) -> float | None:
    return round(sum(v) / len(v), 4) if v else None


async def score_points(rows: list[dict], judge: Judge) -> list[dict[str, Any] | None]:
    """The judge's single ARC for each review point (None when the step failed)."""
    step = ARCStep()

    async def one(r: dict) -> dict[str, Any] | None:
        text = r["review_point"]
        inp = ARCInput(review_text=text, comments=[text], comment_section="Weaknesses")
        res = await judge.run(step, inp)
        out = res.output
        if not res.ok or out is None or len(out.atomic_comments) != 1:
            return None
        if out.atomic_comments[0].scores_missing:  # a score the judge never gave is not a 0
            return None
        return dict(out.atomic_comments[0].model_dump())

    return await progress.gather((one(r) for r in rows), "revutil points")


def agreement_metrics(rows: list[dict], arcs: list[dict[str, Any] | None]) -> Metrics:
    """The metrics of the module docstring from labelled rows and the judge's ARCs."""
    pairs: dict[str, tuple[list[float], list[float]]] = {
        k: ([], []) for k in ("act", "gs", "ver", "d4", "help")
    }
    words: dict[str, list[float]] = {k: [] for k in ("act", "gs", "ver")}
    d3_x: list[float] = []
    d4_hi: list[float] = []
    d4_lo: list[float] = []
    tone_hits = tone_n = 0
    for r, arc in zip(rows, arcs, strict=True):
        if arc is None:
            continue
        lab = r["labels"]
        d = {
            k: float(arc[k])
            for k in (
                "D1_actionability",
                "D2_specificity",
                "D3_justification",
                "D4_solution",
                "D5_tone",
            )
        }
        for key, aspect, dim in (
            ("act", "actionability", "D1_actionability"),
            ("gs", "grounding_specificity", "D2_specificity"),
            ("ver", "verifiability", "D3_justification"),
            ("d4", "actionability", "D4_solution"),
        ):
            g = _num(lab[aspect]["majority"])
            if g is not None:
                pairs[key][0].append(d[dim])
                pairs[key][1].append(g)
                if key in words:
                    words[key].append(float(len(r["review_point"].split())))
        act = _num(lab["actionability"]["majority"])
        if act is not None and act >= 4:
            d4_hi.append(d["D4_solution"])
        elif act is not None and act <= 2:
            d4_lo.append(d["D4_solution"])
        if lab["verifiability"]["majority"] == "X":
            d3_x.append(d["D3_justification"])
        hp = _num(lab.get("helpfulness", {}).get("majority"))
        if hp is not None:
            pairs["help"][0].append(sum(d.values()) / 10)
            pairs["help"][1].append(hp)
        tone = _num(lab["professional_tone"]["majority"])
        if tone is not None:
            tone_n += 1
            tone_hits += int((d["D5_tone"] >= 1) == (tone == 1))
    out: Metrics = {
        "revutil.actionability.spearman": _spearman(*pairs["act"]),
        "revutil.grounding_specificity.spearman": _spearman(*pairs["gs"]),
        "revutil.verifiability.spearman": _spearman(*pairs["ver"]),
        "revutil.verifiability.mean_d3_claims": _mean(pairs["ver"][0]),
        "revutil.verifiability.mean_d3_x": _mean(d3_x),
        "revutil.tone.accuracy": round(tone_hits / tone_n, 4) if tone_n else None,
        "revutil.solution.spearman_vs_actionability": _spearman(*pairs["d4"]),
        "revutil.solution.mean_d4_actionability_4_5": _mean(d4_hi),
        "revutil.solution.mean_d4_actionability_1_2": _mean(d4_lo),
        "revutil.helpfulness.spearman_clc": _spearman(*pairs["help"]),
        **_length_baselines(pairs, words),
        "n.points": len(rows),
        "n.unscored": sum(a is None for a in arcs),
        "n.actionability": len(pairs["act"][0]),
        "n.grounding_specificity": len(pairs["gs"][0]),
        "n.verifiability": len(pairs["ver"][0]),
        "n.verifiability_x": len(d3_x),
        "n.tone": tone_n,
        "n.helpfulness": len(pairs["help"][0]),
    }
    return out


def _length_baselines(
    pairs: dict[str, tuple[list[float], list[float]]], words: dict[str, list[float]]
) -> Metrics:
    """Word-count Spearman per aspect on the judge's points, and the judge's margin over it
    (None when either Spearman is undefined)."""
    out: Metrics = {}
    for key, aspect in (("act", "actionability"), ("gs", "grounding_specificity"), ("ver", "verifiability")):
        judge = _spearman(*pairs[key])
        wc = _spearman(words[key], pairs[key][1])
        out[f"revutil.{aspect}.word_count_spearman"] = wc
        out[f"revutil.{aspect}.minus_word_count"] = (
            None if judge is None or wc is None else round(judge - wc, 4)
        )
    return out


@register_dataset("revutil")
async def measure(path: Path, judge: Judge, limit: int | None) -> Metrics:
    """Read RevUtil points from ``path``, score them with ``judge`` and compare."""
    rows = read_jsonl(Path(path))
    if limit is not None:
        rows = rows[:limit]
    arcs = await score_points(rows, judge)
    return agreement_metrics(rows, arcs)

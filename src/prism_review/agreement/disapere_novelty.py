"""Novelty claims of a judge against DISAPERE's originality sentences: ``--dataset disapere-novelty``.

The same DISAPERE files as ``--dataset disapere`` (which measures the DoA steps); kept apart so
that validating an LLM judge's DoA steps does not also pay for its novelty-claim calls.

DISAPERE labels evaluative and request sentences with an aspect; ``asp_originality`` sentences
are the reviewer's statements about novelty, the closest human label to PRISM's novelty claims
(the data README, §1). The judge's ``novelty.claims`` step reads each whole review; a claim
matches a gold sentence when one contains the other (whitespace-folded, case-insensitive; claims
are verbatim 1–2 sentence spans). Keys:

* ``disapere.novelty.claim.{precision,recall,f1}`` — sentence level: a gold originality sentence
  is found when some claim matches it; a claim is correct when it matches one;
* ``disapere.novelty.stance.accuracy`` — on found originality sentences with a polarity:
  ``pol_positive`` ↔ ``novel``, ``pol_negative`` ↔ ``not_novel``/``somewhat_novel``;
* ``disapere.novelty.claim_rate.{predicted,gold}`` — the Table-1 claim rate: share of reviews
  with at least one claim, against the share with at least one originality sentence;
* ``disapere.novelty.has_claim.kappa`` — Cohen's kappa of "has a claim" per review;
* ``disapere.novelty.novel_share.{predicted,gold}`` — mean over reviews (with claims,
  resp. polar originality sentences) of the share that is positive: the quantity that drives SR
  when verdicts follow the stance.

A review whose claims step the judge could not answer is left out and counted.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prism_review.agreement import register_dataset
from prism_review.data.jsonl import read_jsonl
from prism_review.judge.base import Judge
from prism_review.judge.novelty.claims import ClaimsInput, ClaimsStep
from prism_review.judge.novelty.textprep import review_for_extraction


def _fold(text: str) -> str:
    return " ".join(text.split()).lower()


def _matches(claim: str, sentence: str) -> bool:
    a, b = _fold(claim), _fold(sentence)
    return bool(a and b) and (b in a or a in b)


async def _one(rec: dict[str, Any], judge: Judge) -> dict[str, Any] | None:
    sents = rec["sentences"]
    text = "".join(s["text"] + (s.get("suffix") or " ") for s in sents).strip()
    res = await judge.run(ClaimsStep(), ClaimsInput(review_id=str(rec.get("review_id", "")),
                                                    review=review_for_extraction(text)))
    if not res.ok or res.output is None:
        return None
    claims = [(c.text, c.stance) for c in res.output.novelty_claims]
    gold = [s for s in sents if s.get("aspect") == "asp_originality"]
    found = [s for s in gold if any(_matches(t, s["text"]) for t, _ in claims)]
    correct = sum(any(_matches(t, s["text"]) for s in gold) for t, _ in claims)
    stance: list[bool] = []
    for s in found:
        if s.get("polarity") in ("pol_positive", "pol_negative"):
            got = {st for t, st in claims if _matches(t, s["text"])}
            want = {"novel"} if s["polarity"] == "pol_positive" else {"not_novel", "somewhat_novel"}
            stance.append(bool(got & want))
    polar = [s for s in gold if s.get("polarity") in ("pol_positive", "pol_negative")]
    return {
        "n_gold": len(gold), "n_found": len(found), "n_claims": len(claims), "n_correct": correct,
        "stance": stance,
        "novel_share_pred": (sum(st == "novel" for _, st in claims) / len(claims)) if claims else None,
        "novel_share_gold": (sum(s["polarity"] == "pol_positive" for s in polar) / len(polar)) if polar else None,
    }


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _kappa(gold: list[bool], pred: list[bool]) -> float | None:
    """Cohen's kappa of two binary labelings (None when undefined: no items or no variation)."""
    n = len(gold)
    if not n:
        return None
    agree = sum(g == p for g, p in zip(gold, pred, strict=True)) / n
    pg, pp = sum(gold) / n, sum(pred) / n
    chance = pg * pp + (1 - pg) * (1 - pp)
    return (agree - chance) / (1 - chance) if chance < 1 else None


@register_dataset("disapere-novelty")
async def novelty_claim_metrics(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """The ``disapere.novelty.*`` figures of ``judge`` on a DISAPERE file (module docstring)."""
    recs = read_jsonl(Path(path))[:limit]
    results = await asyncio.gather(*(_one(r, judge) for r in recs))
    done = [r for r in results if r is not None]
    gold = sum(r["n_gold"] for r in done)
    claims = sum(r["n_claims"] for r in done)
    p = sum(r["n_correct"] for r in done) / claims if claims else None
    rec = sum(r["n_found"] for r in done) / gold if gold else None
    f1 = 2 * p * rec / (p + rec) if p is not None and rec is not None and p + rec > 0 else None
    stance = [x for r in done for x in r["stance"]]
    return {
        "disapere.novelty.claim.precision": p,
        "disapere.novelty.claim.recall": rec,
        "disapere.novelty.claim.f1": f1,
        "disapere.novelty.stance.accuracy": _mean([float(x) for x in stance]),
        "disapere.novelty.claim_rate.predicted": _mean([float(r["n_claims"] > 0) for r in done]),
        "disapere.novelty.claim_rate.gold": _mean([float(r["n_gold"] > 0) for r in done]),
        "disapere.novelty.has_claim.kappa": _kappa([r["n_gold"] > 0 for r in done], [r["n_claims"] > 0 for r in done]),
        "disapere.novelty.novel_share.predicted": _mean([r["novel_share_pred"] for r in done
                                                         if r["novel_share_pred"] is not None]),
        "disapere.novelty.novel_share.gold": _mean([r["novel_share_gold"] for r in done
                                                    if r["novel_share_gold"] is not None]),
        "n.disapere.novelty.originality_sentences": gold,
        "n.disapere.novelty.claims": claims,
        "n.disapere.novelty.stance": len(stance),
        "n.unscored.novelty_claims": len(results) - len(done),
    }

"""Assemble one review's claim verdicts into per-claim final scores (prism-reference §5.4–5.5).

Pair outcomes come from the verdict steps: a normalised verdict dict, ``None`` for an unscored
reply (N4), or an :class:`PairError` when the call failed. Claims with a blank text and
candidates with an empty text are skipped; every remaining claim is paired with every remaining
candidate, in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prism_review.judge.novelty.normalise import heuristic_classification
from prism_review.judge.novelty.textprep import related_work_text
from prism_review.metrics.novelty import FINAL_SCORE_DIGITS, _num, aggregate_scores, best_evidence


@dataclass
class PairError:
    """A pair whose judge call failed (not scored)."""

    error: str


def related_works(candidates: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``{related_paper_id, text, relevance_score}`` for candidates with a non-empty text."""
    out = []
    for c in candidates:
        text = related_work_text(dict(c))
        if text:
            out.append({"related_paper_id": str(c.get("cand_id")), "text": text,
                        "relevance_score": _num(c.get("relevance_score"))})
    return out


def _rate(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def assemble(
    claims: Sequence[Mapping[str, Any]],
    works: Sequence[Mapping[str, Any]],
    outcomes: Mapping[tuple[str, str], dict[str, Any] | PairError | None],
    *,
    policy: str = "top3_relevance",
    compat: bool = False,
) -> dict[str, Any]:
    """``{pair_results, aggregated, stats, errors}`` for one review.

    A claim with no scored pair is unscored (``final_score`` None): whether its pairs were all
    attempted and none scored, or it had no candidate text to be judged against at all (an empty
    pool): a verdict that cannot be informed is not a verdict. In compat mode both get 0.0 and
    still count, as the original did.
    """
    pairs: list[dict[str, Any]] = []
    aggregated: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    attempted = completed = failed = 0
    cov = dict.fromkeys(("any_attempt", "any_success", "without_attempt", "all_failed", "any_evidence",
                         "scored", "decisive", "supporting", "contradicting"), 0)
    n_evidence = 0
    for claim in claims:
        cid, text = str(claim["claim_id"]), str(claim.get("text") or "")
        evidence: list[dict[str, Any]] = []
        c_attempt = c_ok = 0
        flags: list[dict[str, int]] = []
        for w in works:
            pid = str(w["related_paper_id"])
            if (cid, pid) not in outcomes:
                continue
            c_attempt += 1
            res = outcomes[(cid, pid)]
            if isinstance(res, PairError):
                errors.append({"review_sentence_id": cid, "related_paper_id": pid, "error": res.error})
                continue
            if res is None:
                errors.append({"review_sentence_id": cid, "related_paper_id": pid, "error": "unscored reply"})
                continue
            c_ok += 1
            record = {**res, "relevance_score": w.get("relevance_score")}
            pairs.append(record)
            flags.append(res["classification"])
            evidence.append({k: record[k] for k in ("related_paper_id", "score", "label", "explanation", "relevance_score")})
        attempted += c_attempt
        completed += c_ok
        failed += c_attempt - c_ok
        scores = [float(e["score"]) for e in evidence]
        final: float | None
        idx: list[int] = []
        weights: list[float] = []
        if not c_ok and not compat:
            final = None
        else:
            final, idx, weights = aggregate_scores(scores, policy, [e["relevance_score"] for e in evidence],
                                                   ndigits=None if compat else FINAL_SCORE_DIGITS)
        ids, details = best_evidence(evidence, idx, weights)
        if flags:
            cls = {"claim": max(f["claim"] for f in flags), "proof": max(f["proof"] for f in flags)}
        else:
            c, p = heuristic_classification(text, compat=compat)
            cls = {"claim": c, "proof": p}
        aggregated.append({
            "review_sentence_id": cid, "text": text, "stance": claim.get("stance"), "classification": cls,
            "evidence_results": evidence, "final_score": final, "best_evidence": ids,
            "best_evidence_policy": policy, "best_evidence_details": details,
        })
        n_evidence += len(evidence)
        cov["any_attempt"] += c_attempt > 0
        cov["any_success"] += c_ok > 0
        cov["without_attempt"] += c_attempt == 0
        cov["all_failed"] += c_attempt > 0 and c_ok == 0
        cov["any_evidence"] += bool(evidence)
        cov["scored"] += bool(scores)
        if final is not None:
            cov["decisive"] += abs(final) >= 1
            cov["supporting"] += final >= 1
            cov["contradicting"] += final <= -1
    n = len(claims)
    coverage = {
        "claims_total": n,
        "claims_with_any_attempt": cov["any_attempt"],
        "claims_with_any_success": cov["any_success"],
        "claims_without_pair_attempt": cov["without_attempt"],
        "claims_with_all_pairs_failed": cov["all_failed"],
        "claims_with_any_evidence": cov["any_evidence"],
        "claims_with_scored_evidence": cov["scored"],
        "claims_with_decisive_evidence": cov["decisive"],
        "claims_with_supporting_evidence": cov["supporting"],
        "claims_with_contradicting_evidence": cov["contradicting"],
        "claim_attempt_coverage_rate": _rate(cov["any_attempt"], n),
        "claim_success_coverage_rate": _rate(cov["any_success"], n),
        "evidence_coverage_rate": _rate(cov["any_evidence"], n),
        "decisive_coverage_rate": _rate(cov["decisive"], n),
        "pair_completion_rate": _rate(completed, attempted),
        "pair_failure_rate": _rate(failed, attempted),
        "avg_evidence_per_claim": _rate(n_evidence, n),
    }
    stats = {"review_sentences": n, "related_works": len(works), "pairs_attempted": attempted,
             "pairs_completed": completed, "pairs_failed": failed, "coverage": coverage}
    return {"pair_results": pairs, "aggregated": aggregated, "stats": stats, "errors": errors}

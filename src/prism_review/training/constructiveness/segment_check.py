"""Measure the offline ARC segmentation against the human labels that bear on it.

No dataset labels atomic comments, so two labelled structures stand in:

* **RevUtil points** are one comment each (a reviewer's weakness point, scored whole): the share
  of dev points the segmenter keeps as exactly one comment (``kept_whole``) — a sentence
  splitter cuts every multi-sentence point;
* **SubstanReview** links each evidence span to the claim it supports: a claim and its evidence
  make one point, so they should share a comment (``claim_evidence_together``), while two
  different claims are two points (``distinct_claims_apart``: the share of pairs of adjacent
  distinct claims that land in different comments).

Both are reported for the shipped segmenter and for one-comment-per-sentence, the previous unit.

    python -m prism_review.training.constructiveness.segment_check [--revutil FILE] [--substan FILE]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prism_review.judge.constructiveness.segment import segment_review
from prism_review.shared_folder import SHARED
from prism_review.text import sentence_spans

Segmenter = Callable[[str], list[tuple[int, int]]]


def by_comment(text: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in segment_review(text, min_words=1)]


def by_sentence(text: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in sentence_spans(text)]


def _which(spans: list[tuple[int, int]], pos: int) -> int | None:
    for i, (a, b) in enumerate(spans):
        if a <= pos < b:
            return i
    return None


def revutil_kept_whole(rows: list[dict], seg: Segmenter) -> float | None:
    """Share of RevUtil points cut into exactly one comment."""
    n = sum(len(seg(r["review_point"])) == 1 for r in rows)
    return round(n / len(rows), 4) if rows else None


def substan_figures(rows: list[dict], seg: Segmenter) -> dict[str, Any]:
    """Claim/evidence cohesion and claim separation of ``seg`` on SubstanReview reviews."""
    together = pairs = apart = distinct = 0
    for r in rows:
        spans = seg(r["review"])
        claims: dict[Any, list[int]] = {}
        evid: dict[Any, list[int]] = {}
        for sp in r["spans"]:
            if sp["link"] is None or sp["kind"] not in ("claim", "evidence"):
                continue
            key = (sp["polarity"], sp["link"])
            mid = (sp["start"] + sp["end"]) // 2
            i = _which(spans, mid)
            if i is None:
                continue
            (claims if sp["kind"] == "claim" else evid).setdefault(key, []).append(i)
        for key, es in evid.items():
            for e in es:
                if key in claims:
                    pairs += 1
                    together += int(e in claims[key])
        order = sorted((min(v), k) for k, v in claims.items())
        for (i, _), (j, _) in zip(order, order[1:], strict=False):
            distinct += 1
            apart += int(i != j)
    return {
        "claim_evidence_together": round(together / pairs, 4) if pairs else None,
        "distinct_claims_apart": round(apart / distinct, 4) if distinct else None,
        "n_claim_evidence_pairs": pairs,
        "n_adjacent_claim_pairs": distinct,
    }


def measure(revutil: list[dict], substan: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, seg in (("atomic_comments", by_comment), ("sentences", by_sentence)):
        out[name] = {"revutil_kept_whole": revutil_kept_whole(revutil, seg), **substan_figures(substan, seg)}
    out["n_revutil_points"] = len(revutil)
    out["n_substanreview_reviews"] = len(substan)
    return out


def main(argv: list[str] | None = None) -> None:
    from prism_review.data.jsonl import read_jsonl

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--revutil", type=Path, default=Path(f"{SHARED}/data/labels/revutil/dev.jsonl"))
    ap.add_argument("--substan", type=Path, default=Path(f"{SHARED}/data/labels/substanreview/train.jsonl"))
    a = ap.parse_args(argv)
    print(json.dumps(measure(read_jsonl(a.revutil), read_jsonl(a.substan)), indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

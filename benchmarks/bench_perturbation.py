"""Time ``prism perturbation score``'s work on the dev set: loading the rows and scoring comments.

The comments are made here, deterministically, the way LLM reviewers write them: per row,
``--comments`` comments, half quoting a whole paragraph of the text the reviewer saw (200–3,000
characters) and half quoting the verifier's short quote of an edit, with its reason. Long quotes
are what made the quote-coverage test slow: difflib compares every edit with every quote.

    .venv/bin/python benchmarks/bench_perturbation.py                  # fast path, all 90 rows
    .venv/bin/python benchmarks/bench_perturbation.py --reference 10   # + difflib's full
                                                                       #   comparison on 10 rows

``--reference N`` scores the first N rows a second time with the quote test done by difflib's
full ``get_matching_blocks`` (what ran before) and checks that both give the same result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

from prism_review.data.perturbation import PerturbationReader, PerturbationRow
from prism_review.metrics import perturbation as pm
from prism_review.shared_folder import SHARED
from prism_review.tasks.perturbation import score_perturbations


def make_comments(rows: list[PerturbationRow], per_row: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(seed)
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        text = r.review_input or r.perturbed_paper or ""
        paras = [p for p in text.split("\n\n") if 200 <= len(p) <= 3000] or [text[:2000]]
        edits = r.scored_perturbations or r.perturbations
        cs: list[dict[str, Any]] = []
        for i in range(per_row):
            if i % 2 == 0 or not edits:
                cs.append({"title": "Unclear passage", "quote": rng.choice(paras),
                           "explanation": "This passage is unclear.", "comment_type": "technical"})
            else:
                e = rng.choice(edits)
                cs.append({"title": "Error", "quote": e.verifier_quote or e.perturbed,
                           "explanation": e.verifier_reason or "", "comment_type": "technical"})
        out[r.id] = cs
    return out


def _difflib_covers(quote: str, window: str, threshold: float) -> bool:
    return pm.quote_coverage(quote, window) >= threshold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=Path, default=Path(f"{SHARED}/data/perturbation/dev.jsonl"))
    ap.add_argument("--comments", type=int, default=20, help="comments per row")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reference", type=int, default=0, help="also score N rows with difflib's full comparison")
    ap.add_argument("--write-comments", type=Path, help="also write the comments as JSONL (for the CLI)")
    args = ap.parse_args()

    t0, c0 = time.perf_counter(), time.process_time()
    reader = PerturbationReader(args.rows)
    rows = list(reader)
    t_load, c_load = time.perf_counter() - t0, time.process_time() - c0
    comments = make_comments(rows, args.comments, args.seed)
    if args.write_comments:
        with args.write_comments.open("w", encoding="utf-8") as fh:
            fh.writelines(json.dumps({"id": k, "comments": v}) + "\n" for k, v in comments.items())
    n_comments = sum(len(c) for c in comments.values())
    print(f"rows: {len(rows)}, edits: {sum(len(r.perturbations) for r in rows)}, "
          f"scored: {sum(len(r.scored_perturbations) for r in rows)}, comments: {n_comments}")
    print(f"load (parse, rebuild review_input, window): {t_load:.2f} s wall, {c_load:.2f} s CPU  "
          f"{dict(reader.counts)}")
    for method in ("location", "fuzzy"):
        t0, c0 = time.perf_counter(), time.process_time()
        summary, _ = asyncio.run(score_perturbations(rows, comments, method=method))  # type: ignore[arg-type]
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        o = summary["overall"]
        print(f"score --method {method}: {dt:.2f} s wall, {dc:.2f} s CPU  ({summary['n_rows']} rows, "
              f"{o['n_detected']}/{o['n_scored']} detected, {summary['figure']} = {o[summary['figure']]:.4f})")
    if args.reference:
        sub = rows[: args.reference]
        fast = asyncio.run(score_perturbations(sub, comments))
        c0 = time.process_time()
        saved, pm.covers = pm.covers, _difflib_covers  # type: ignore[assignment]
        try:
            ref = asyncio.run(score_perturbations(sub, comments))
        finally:
            pm.covers = saved  # type: ignore[assignment]
        dc = time.process_time() - c0
        same = fast == ref
        c0 = time.process_time()
        asyncio.run(score_perturbations(sub, comments))
        dc_fast = time.process_time() - c0
        print(f"reference (difflib full comparison) on {len(sub)} rows: {dc:.2f} s CPU vs {dc_fast:.2f} s CPU; "
              f"same result: {same}")
        if not same:
            raise SystemExit("the fast quote test disagrees with difflib")


if __name__ == "__main__":
    main()

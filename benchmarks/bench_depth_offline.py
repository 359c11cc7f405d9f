"""Reviews/second of the offline Depth-of-Analysis judge on real reviews (DISAPERE dev).

Each review goes through the whole DoA dimension as `prism evaluate` runs it (segment →
classify → ground → metrics) with the offline judge, one review at a time. The models are
loaded before timing (load time is printed apart); the encoder's per-sentence cache and the
grounding model's per-text caches are emptied before every timed pass, so nothing computed in
an earlier pass is reused.

    .venv/bin/python benchmarks/bench_depth_offline.py [--repeat 3] [--file DISAPERE.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.base import OfflineJudge
from prism_review.judge.depth.data import load_disapere
from prism_review.judge.depth.encoder import load_encoder
from prism_review.judge.depth.model import load_model
from prism_review.records import Paper, Review, Section
from prism_review.shared_folder import DATA

try:
    from prism_review.judge.sentiment import polarity as _polarity
except ImportError:  # code from before the shared VADER memo
    _polarity = None


#: units queued ahead of the one being evaluated, as the runner's task window queues them
#: (``prism evaluate`` prefetches each unit's encoder runs when it queues the unit)
WINDOW = 64


async def _pass(units: list, dim, judge: OfflineJudge, window: int = WINDOW) -> int:  # type: ignore[no-untyped-def]
    rows = 0
    ctx = RunContext(judge)
    prefetch = getattr(dim, "prefetch", None) if window > 0 else None  # None: code before it
    ahead = 0
    for i, unit in enumerate(units):
        while prefetch is not None and ahead < min(len(units), i + window):
            prefetch(units[ahead], ctx)
            ahead += 1
        rows += len(await dim.evaluate(unit, ctx))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--window", type=int, default=WINDOW,
                    help="units prefetched ahead (0: none, the code before the prefetch)")
    ap.add_argument("--file", type=Path, default=DATA / "labels" / "disapere" / "dev.jsonl")
    args = ap.parse_args()
    reviews = load_disapere(args.file)
    dim = get_dimension("depth")
    units = []
    for r in reviews:
        paper = Paper(paper_id=r.review_id, venue="ICLR2024")
        review = Review(
            paper_id=r.review_id,
            venue="ICLR2024",
            system="human",
            reviewer_id="Human_1",
            sections=[Section(name="Review", text=r.full_text)],
        )
        units.extend(dim.work_units(paper, {"human": [review]}, ["human"]))
    t0 = time.perf_counter()
    model = load_model()
    enc = load_encoder()
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"models loaded in {time.perf_counter() - t0:.2f} s"
    )
    judge = OfflineJudge()
    times = []
    for _ in range(args.repeat):
        enc.clear_cache()
        # the grounding model's per-text memos (sparse vectors, VADER, score rows)
        getattr(model, "clear_cache", model._cache.clear)()
        if _polarity is not None:  # the VADER memo shared with constructiveness
            _polarity.cache_clear()
        t0 = time.perf_counter()
        rows = asyncio.run(_pass(units, dim, judge, args.window))
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    n_sent = sum(len(r.texts) for r in reviews)
    print(
        f"{len(reviews)} reviews ({n_sent} sentences, {rows} result rows): "
        f"median {med:.2f} s over {args.repeat} passes → {len(reviews) / med:.1f} reviews/s, "
        f"{n_sent / med:.0f} sentences/s"
    )


if __name__ == "__main__":
    main()

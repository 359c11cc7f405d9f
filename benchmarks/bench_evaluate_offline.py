"""Throughput of ``prism evaluate`` with the offline judge, per dimension, on the bundled demo.

Each dimension runs in a fresh run folder (no resume) in this process after one warm-up pass
(which loads the offline models and builds the novelty index), so the figure is steady-state
judge + metric time. The DoA encoder's per-sentence cache is emptied before every timed run,
and so is the novelty embedder's, so no sentence vector computed in the warm-up is reused. Prints reviews/second (rows written per second) and units/second.

    .venv/bin/python benchmarks/bench_evaluate_offline.py [--repeat 3] [--data DATA_ROOT] [--dimension D ...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from prism_review.dimensions.base import dimension_names
from prism_review.judge.base import OfflineJudge
from prism_review.judge.depth.encoder import load_encoder
from prism_review.judge.novelty.embedder import load_embedder
from prism_review.pipelines.results import read_results
from prism_review.pipelines.runner import EvalOptions, run_evaluation

DIMENSIONS = dimension_names()  # every registered dimension


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--dimension", action="append", choices=DIMENSIONS, help="only these (default: all)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="prism-bench-"))
    os.environ.setdefault("PRISM_CACHE_DIR", str(tmp / "cache"))
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'dimension':<18}{'units':>7}{'rows':>7}{'seconds':>10}{'rows/s':>10}{'units/s':>10}")
    for dim in args.dimension or DIMENSIONS:
        # warm-up: models, index, imports
        asyncio.run(
            run_evaluation(
                EvalOptions(data=args.data, out=tmp / f"warm-{dim}", dimensions=[dim]),
                judge=OfflineJudge(),
            )
        )
        times = []
        for i in range(args.repeat):
            out = tmp / f"{dim}-{i}"
            load_encoder().clear_cache()
            load_embedder().clear_cache()
            t0 = time.perf_counter()
            res = asyncio.run(
                run_evaluation(
                    EvalOptions(data=args.data, out=out, dimensions=[dim]), judge=OfflineJudge()
                )
            )
            times.append(time.perf_counter() - t0)
        rows = len(read_results(out))
        med = statistics.median(times)
        print(
            f"{dim:<18}{res.units_done:>7}{rows:>7}{med:>10.2f}{rows / med:>10.1f}{res.units_done / med:>10.1f}"
        )


if __name__ == "__main__":
    main()

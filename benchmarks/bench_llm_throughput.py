"""Benchmark: sustained LLM-judge throughput against the loopback server.

Starts ``prism_review.testing.llm_server`` with a fixed latency per reply (default 200 ms) in a
separate process (as a remote provider would be; ``--in-process`` runs it in a thread of this
process instead), then drives ``LLMJudge.run`` — the full path: settings, limits, the openai
SDK over HTTP, lenient parse, pydantic validation, finalize — for ``--calls`` distinct items with
the cache disabled. With ``--concurrency C`` and latency ``L`` the ideal rate is ``C / L``
(32 / 0.2 s = 160 calls/s). The first ``--warmup`` calls (connection set-up) are not timed.

It also reports the client's CPU time per call and the machine's load average: the judge is
CPU-bound once ``rate × cpu_per_call`` approaches the CPU share the process gets, so on a busy
machine the rate falls below the ideal for reasons outside the judge.

Usage::

    .venv/bin/python benchmarks/bench_llm_throughput.py --concurrency 32 --latency 0.2 --calls 1600
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Literal

from pydantic import BaseModel

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.llm import LLMJudge, make_judge
from prism_review.testing.llm_server import LLMServer


class BenchIn(BaseModel):
    n: int


class BenchOut(BaseModel):
    label: Literal["yes", "no"]
    score: int


class BenchStep(JudgeStep[BenchIn, BenchOut]):
    """A small structured-output step, like a typical PRISM extraction step."""

    name = "bench.label"
    Input = BenchIn
    Output = BenchOut

    def messages(self, inp: BenchIn) -> list[ChatMessage]:
        return [ChatMessage(role="system", content="Answer yes or no, with a score, as JSON."),
                ChatMessage(role="user", content=f"Item {inp.n}: is this a good review? " * 8)]

    def offline(self, inp: BenchIn) -> BenchOut:
        return BenchOut(label="yes", score=inp.n % 5)


def _start_server(latency: float, in_process: bool) -> tuple[str, object]:
    if in_process:
        server = LLMServer(latency=latency).start()
        return server.base_url, server
    proc = subprocess.Popen(
        [sys.executable, "-m", "prism_review.testing.llm_server", "--latency", str(latency)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc.stdout.readline().strip(), proc


def _stop_server(handle: object) -> None:
    if isinstance(handle, LLMServer):
        handle.stop()
    elif isinstance(handle, subprocess.Popen):
        handle.stdin.close()  # type: ignore[union-attr]
        handle.wait(timeout=10)


async def _drive(judge: LLMJudge, calls: int, warmup: int, concurrency: int) -> dict[str, float]:
    step = BenchStep()
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in range(warmup + calls):
        queue.put_nowait(n)
    done_at: list[float] = []
    failures = 0

    async def worker() -> None:
        nonlocal failures
        while True:
            try:
                n = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            res = await judge.run(step, BenchIn(n=n))
            failures += 0 if res.ok else 1
            done_at.append(time.perf_counter())

    # more workers than slots: the judge's own per-provider semaphore is what limits concurrency
    await asyncio.gather(*(worker() for _ in range(concurrency * 2)))
    done_at.sort()
    timed = done_at[warmup:]
    elapsed = timed[-1] - done_at[warmup - 1] if warmup else timed[-1] - timed[0]
    # per-second completion counts over the timed window, to show the rate is sustained
    start = timed[0]
    buckets: dict[int, int] = {}
    for t in timed:
        buckets[int(t - start)] = buckets.get(int(t - start), 0) + 1
    full_seconds = [v for k, v in sorted(buckets.items()) if k < int(timed[-1] - start)]
    return {
        "calls": len(timed), "seconds": elapsed, "calls_per_s": len(timed) / elapsed,
        "min_per_s_bucket": min(full_seconds) if full_seconds else float("nan"),
        "median_per_s_bucket": statistics.median(full_seconds) if full_seconds else float("nan"),
        "failures": failures,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--calls", type=int, default=1600, help="timed calls")
    parser.add_argument("--warmup", type=int, default=64)
    parser.add_argument("--in-process", action="store_true",
                        help="run the server in a thread of this process (shares the GIL)")
    args = parser.parse_args()

    base_url, handle = _start_server(args.latency, args.in_process)
    try:
        judge = make_judge(f"openai-compatible/bench-model@{base_url}", no_cache=True,
                           concurrency=args.concurrency, api_key="bench", timeout=30)
        assert isinstance(judge, LLMJudge)

        async def run() -> dict[str, float]:
            try:
                return await _drive(judge, args.calls, args.warmup, args.concurrency)
            finally:
                await judge.aclose()

        load_before = os.getloadavg()[0]
        cpu0 = time.process_time()
        result = asyncio.run(run())
        result["client_cpu_ms_per_call"] = (time.process_time() - cpu0) * 1000 / (
            args.calls + args.warmup)
        result["load_avg_1min_before_after"] = [round(load_before, 2),
                                                round(os.getloadavg()[0], 2)]
    finally:
        _stop_server(handle)
    ideal = args.concurrency / args.latency
    result.update({"ideal_per_s": ideal, "ratio_to_ideal": result["calls_per_s"] / ideal,
                   "concurrency": args.concurrency, "latency_s": args.latency,
                   "server": "in-process thread" if args.in_process else "subprocess",
                   "judge_errors": judge.stats.errors, "judge_retries": judge.stats.retries})
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                      for k, v in result.items()}, indent=2))


if __name__ == "__main__":
    main()

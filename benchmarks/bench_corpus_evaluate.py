"""Benchmark: `prism evaluate` (offline judge) on a synthetic corpus table, local engine vs Ray.

Writes a synthetic PRISM ``papers.parquet`` (default 2,000 papers × ~4 human reviews in the
ICLR 2024 review form) into ``benchmarks/_out/``, then runs ``prism evaluate --data`` on it with
the depth and constructiveness dimensions (the two that need neither LLM reviews nor a literature
index) once with ``--engine local --workers N`` (N: the CPU count; ``--workers 1`` is the
in-process engine) and once with ``--engine ray`` (2 CPUs), each in a fresh subprocess, and
prints reviews/s, the peak RSS summed over the whole process tree (sampled from /proc every
0.2 s, so Ray's workers count), the process tree's CPU time and the projected time for the
corpus's 186,090 reviews.

Review text: real review sentences (DISAPERE, ``../shared/data/labels/disapere``, CC BY-NC 4.0,
read at run time, never written to the repository) drawn at random into Summary / Strengths /
Weaknesses / Questions fields of real-review size (~400–650 words). Every drawn sentence gets one
random extra word, so no sentence repeats and the offline judge's sentence cache cannot make the
run look faster than a real corpus would.

Usage::

    .venv/bin/python benchmarks/bench_corpus_evaluate.py                 # 2,000 papers, both engines
    .venv/bin/python benchmarks/bench_corpus_evaluate.py --papers 500 --engine local
    .venv/bin/python benchmarks/bench_corpus_evaluate.py --limit 400 --engine local --workers 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

OUT = Path(__file__).parent / "_out"
CORPUS_REVIEWS = 186_090
FIELDS = (("Summary", 3, 5), ("Strengths", 3, 6), ("Weaknesses", 7, 12), ("Questions", 2, 5))


def _sentences() -> list[str]:
    from prism_review.shared_folder import DATA  # the shared folder beside the clone

    out = []
    for name in ("train.jsonl", "dev.jsonl"):
        for line in (DATA / "labels" / "disapere" / name).read_text(encoding="utf-8").split("\n"):
            if line.strip():
                out += [s["text"] for s in json.loads(line)["sentences"] if len(s["text"]) > 20]
    return out


def _review(rng: random.Random, pool: list[str], vocab: list[str]) -> dict[str, str]:
    review: dict[str, str] = {}
    for name, lo, hi in FIELDS:
        picked = []
        for s in rng.sample(pool, rng.randint(lo, hi)):
            words = s.split()
            words.insert(rng.randrange(len(words) + 1), rng.choice(vocab))
            picked.append(" ".join(words))
        sep = "\n- " if name in ("Strengths", "Weaknesses") else " "
        review[name] = (sep.lstrip(" ") if sep != " " else "") + sep.join(picked)
    review["Soundness"] = f"{rng.randint(1, 4)} fair"
    review["Presentation"] = f"{rng.randint(1, 4)} good"
    review["Contribution"] = f"{rng.randint(1, 4)} fair"
    review["Rating"] = f"{rng.choice([1, 3, 5, 6, 8, 10])}: rating"
    review["Confidence"] = f"{rng.randint(1, 5)}: confident"
    return review


def generate(path: Path, papers: int, seed: int = 13) -> tuple[int, float]:
    """Write the table; returns (number of reviews, mean words per review)."""
    rng = random.Random(seed)
    pool = _sentences()
    vocab = sorted({w.strip(".,;:()").lower() for s in pool for w in s.split()} - {""})
    rows, n_reviews, words = [], 0, 0
    for i in range(papers):
        reviews = [_review(rng, pool, vocab) for _ in range(rng.choice([3, 4, 4, 5]))]
        n_reviews += len(reviews)
        words += sum(len(v.split()) for r in reviews for k, v in r.items() if k in dict.fromkeys(f[0] for f in FIELDS))
        body = " ".join(rng.choice(vocab) for _ in range(6000))
        rows.append({
            "paper_id": f"syn{i:05d}", "venue": "ICLR_2024",
            "decision": rng.choice(["Accept (poster)", "Reject", "Reject", "Accept (oral)"]),
            "meta_review": "", "reviews_json": json.dumps(reviews), "keywords": "[]",
            "review_title": f"Synthetic paper {i}", "review_abstract": body[:1200],
            "grobid_title": "", "grobid_abstract": "", "full_text": body, "grobid_fulltext": "",
            "bibliography_json": "[]",
        })  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), path, compression="zstd", row_group_size=200)
    return n_reviews, words / max(1, n_reviews)


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parts = fh.read().rsplit(")", 1)[1].split()
            children.setdefault(int(parts[1]), []).append(int(entry))
            rss[int(entry)] = int(parts[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack.extend(children.get(p, []))
    return total


def run(engine: str, data: Path, limit: int | None, workers: int = 1,
        keep: Path | None = None) -> dict[str, float]:
    out = Path(tempfile.mkdtemp(prefix=f"bench_{engine}_"))
    prism = Path(sys.executable).parent / "prism"
    cmd = [str(prism), "evaluate", "--data", str(data), "--dimension", "depth", "--dimension",
           "constructiveness", "--engine", engine, "--out", str(out), "--quiet", "--no-report"]
    if limit:
        cmd += ["--limit", str(limit)]
    if engine == "local" and workers != 1:
        cmd += ["--workers", str(workers)]
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0

    def sample() -> None:
        nonlocal peak
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.2)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, err = proc.communicate()
    th.join()
    seconds = time.perf_counter() - t0
    load = os.getloadavg()[0]
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the reaped process tree's CPU
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{engine} run failed (rc {proc.returncode}):\n{err[-3000:]}")
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    reviews = len({(r["paper_id"], r["reviewer_id"]) for r in rows})
    if keep is not None:  # the results, to compare runs (e.g. before/after a change)
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "results.jsonl", keep / f"{engine}.jsonl")
    shutil.rmtree(out, ignore_errors=True)
    return {"reviews": reviews, "seconds": seconds, "reviews_per_s": reviews / seconds,
            "cpu_s": cpu, "cpu_ms_per_review": 1000 * cpu / max(1, reviews), "load": load,
            "peak_rss_mb": peak / 2**20, "projected_hours": CORPUS_REVIEWS / (reviews / seconds) / 3600}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--engine", choices=["local", "ray", "both"], default="both")
    ap.add_argument("--limit", type=int, default=None, help="evaluate only N papers of the table")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="local engine: --workers of prism evaluate (default: the CPU count)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="copy each engine's results.jsonl into this folder")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    data = OUT / f"corpus_eval_{args.papers}.parquet"
    if not data.exists():
        n, words = generate(data, args.papers)
        print(f"wrote {data}: {args.papers} papers, {n} reviews, {words:.0f} words per review")
    engines = ["local", "ray"] if args.engine == "both" else [args.engine]
    results = {}
    for engine in engines:
        results[engine] = r = run(engine, data, args.limit, args.workers, args.keep)
        label = f"local ×{args.workers}" if engine == "local" else engine
        print(f"{label:9s}: {r['reviews']:.0f} reviews in {r['seconds']:.1f}s = "
              f"{r['reviews_per_s']:.1f} reviews/s (depth + constructiveness), peak RSS "
              f"{r['peak_rss_mb']:.0f} MB, projected {r['projected_hours']:.1f} h for "
              f"{CORPUS_REVIEWS:,} reviews; CPU {r['cpu_s']:.0f} s = "
              f"{r['cpu_ms_per_review']:.0f} ms per review; load average {r['load']:.1f}")
    if len(results) == 2:
        ratio = results["ray"]["reviews_per_s"] / results["local"]["reviews_per_s"]
        print(f"ray / local throughput: {ratio:.2f}")


if __name__ == "__main__":
    main()

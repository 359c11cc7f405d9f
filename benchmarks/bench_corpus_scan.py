"""Benchmark: stream a synthetic PRISM ``papers.parquet`` and measure time and peak memory.

Generates a corpus table with the real 31 columns and realistic text sizes (default 10,000 rows,
~40 KB of text per row spread over full_text, grobid_fulltext, reviews_json, bibliography…,
zstd, several row groups) into ``benchmarks/_out/``, then runs each scan in a fresh
subprocess and reads that process's peak RSS (``ru_maxrss``):

- ``metadata``: ``CorpusReader(columns=METADATA_COLUMNS)`` — no text columns decoded;
- ``full``: every column, every row turned into ``Paper`` + ``Review`` records.

Usage::

    .venv/bin/python benchmarks/bench_corpus_scan.py                 # generate (once) + measure
    .venv/bin/python benchmarks/bench_corpus_scan.py --rows 20000 --text-kb 40 --row-group-rows 500
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

OUT = Path(__file__).parent / "_out"
VENUES = ["ICLR_2024", "ICLR_2025", "ICLR_2026", "ICML_2025", "NeurIPS_2025"]
DECISIONS = ["Accept (oral)", "Accept (spotlight)", "Accept (poster)", "Reject", "Pending"]
# share of the per-row text budget each column gets
SHARES = {"full_text": 0.42, "grobid_fulltext": 0.38, "reviews_json": 0.12, "bibliography_json": 0.03,
          "bibliography_bib": 0.02, "meta_review": 0.015, "review_abstract": 0.0075, "grobid_abstract": 0.0075}  # fmt: skip


def _word_pool(rng: np.random.Generator, n_chars: int) -> str:
    """Random text over a Zipf-distributed 20k-word vocabulary (compresses like prose, ~3x)."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 12, size=20_000)
    vocab = ["".join(rng.choice(letters, size=n)) for n in lengths]
    ranks = np.minimum(rng.zipf(1.2, size=n_chars // 6), len(vocab)) - 1
    return " ".join(vocab[i] for i in ranks)


def generate(path: Path, rows: int, text_kb: float, row_group_rows: int, seed: int = 0) -> None:
    """Write the synthetic table with a ParquetWriter, one row group at a time."""
    from prism_review.data.corpus import CORPUS_COLUMNS

    rng = np.random.default_rng(seed)
    pool = _word_pool(rng, 16 << 20)
    budget = text_kb * 1024

    def text(n: float) -> str:
        n = int(n * rng.uniform(0.7, 1.3))
        start = int(rng.integers(0, len(pool) - n - 1))
        return pool[start : start + n]

    def review(k: int, n: float) -> dict[str, str]:
        part = max(int(n / 4), 1)
        return {"Summary": text(part * 0.6), "Strengths": text(part * 0.8), "Weaknesses": text(part * 1.6),
                "Questions": text(part), "Soundness": "3 good", "Presentation": "3 good",
                "Contribution": "2 fair", "Confidence": "4: confident", "Rating": f"{(k % 5) * 2}: rating"}  # fmt: skip

    path.parent.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([(c, pa.int64() if c in {"num_reviews", "stat_num_reviews"}
                         else pa.bool_() if c.startswith("stat_has")
                         else pa.float64() if c.endswith("_avg") or c in {"rating_min", "rating_max"}
                         else pa.string()) for c in CORPUS_COLUMNS])  # fmt: skip
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for start in range(0, rows, row_group_rows):
            batch = []
            for i in range(start, min(rows, start + row_group_rows)):
                n_rev = int(rng.integers(3, 6))
                per_review = budget * SHARES["reviews_json"] / n_rev
                row = {c: None for c in CORPUS_COLUMNS}
                row.update(
                    paper_id=f"p{i:06d}", venue=VENUES[i % 5], decision=DECISIONS[(i // 5) % 5],
                    num_reviews=n_rev, rating_avg=5.0, rating_min=3.0, rating_max=8.0, confidence_avg=3.5,
                    soundness_avg=2.8, presentation_avg=2.9, contribution_avg=2.6,
                    reviews_json=json.dumps([review(k, per_review) for k in range(n_rev)]),
                    keywords='["llm", "benchmark"]', primary_area="datasets", subject_areas="[]",
                    review_title=text(80), grobid_title=text(80), grobid_authors='["A. Author"]',
                    grobid_keywords="[]", grobid_date="2025", pdf_path=f"pdf/p{i}.pdf", stat_num_reviews=n_rev,
                    stat_has_meta_review=True, stat_has_decision=True,
                )  # fmt: skip
                for col in ("full_text", "grobid_fulltext", "bibliography_json", "bibliography_bib",
                            "meta_review", "review_abstract", "grobid_abstract"):  # fmt: skip
                    row[col] = text(budget * SHARES[col])
                batch.append(row)
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB.

    Linux's ``VmHWM`` is per address space and restarts at ``exec``; ``ru_maxrss`` is kept across
    ``exec`` and so would include the parent's peak at fork time (here: the generator's).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def scan(path: Path, mode: str, batch_size: int) -> dict[str, float]:
    """Run one scan in this process; report rows, text bytes, seconds and peak RSS."""
    from prism_review.data.corpus import METADATA_COLUMNS, CorpusReader

    rss0 = peak_rss_mb()
    t0 = time.perf_counter()
    rows = reviews = chars = 0
    if mode == "metadata":
        reader = CorpusReader(path, columns=METADATA_COLUMNS, batch_size=batch_size)
        for _row in reader.iter_rows():
            rows += 1
    else:
        reader = CorpusReader(path, batch_size=batch_size)
        for rec in reader:
            rows += 1
            reviews += len(rec.reviews)
            chars += len(rec.paper.full_text) + sum(len(r.text) for r in rec.reviews)
    secs = time.perf_counter() - t0
    return {"mode": mode, "rows": rows, "reviews": reviews, "text_chars_seen": chars, "seconds": round(secs, 2),
            "rss_after_imports_mb": round(rss0, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
            "skipped": len(reader.skips)}  # fmt: skip


def main() -> None:
    """Generate the table if needed, then run both scans in fresh subprocesses."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--text-kb", type=float, default=40.0, help="text per row, KB")
    ap.add_argument("--row-group-rows", type=int, default=1_000)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--scan", choices=["metadata", "full"], help=argparse.SUPPRESS)  # child mode
    ap.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.scan:
        print(json.dumps(scan(args.path, args.scan, args.batch_size)))
        return
    path = OUT / f"papers_{args.rows}x{args.text_kb:g}kb_rg{args.row_group_rows}.parquet"
    if args.regenerate or not path.exists():
        t0 = time.perf_counter()
        generate(path, args.rows, args.text_kb, args.row_group_rows)
        print(f"generated {path} in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    meta = pq.ParquetFile(path).metadata
    text_bytes = sum(meta.row_group(g).column(c).total_uncompressed_size
                     for g in range(meta.num_row_groups) for c in range(meta.num_columns))  # fmt: skip
    print(json.dumps({"file": str(path), "rows": meta.num_rows, "row_groups": meta.num_row_groups,
                      "file_mb": round(path.stat().st_size / 2**20, 1),
                      "uncompressed_mb": round(text_bytes / 2**20, 1)}))  # fmt: skip
    for mode in ("metadata", "full"):
        cmd = [
            sys.executable,
            __file__,
            "--scan",
            mode,
            "--path",
            str(path),
            "--batch-size",
            str(args.batch_size),
        ]
        res = subprocess.run(cmd, check=True, capture_output=True, text=True)
        print(res.stdout.strip())


if __name__ == "__main__":
    main()

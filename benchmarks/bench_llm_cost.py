"""Benchmark: what an LLM judge spends per evaluated review, per dimension and protocol.

Runs ``prism evaluate`` on the whole bundled demo (21 papers, 84 reviews), all four dimensions,
once per protocol (``reference`` and ``economical``), each against its own schema-driven counting
loopback server (``LLMServer(schema_seed=N)``: every reply is built from the sent JSON schema
only, as constrained decoding does), with a fresh cache. Every request the server receives is
counted under the dimension of its step (``X-Prism-Step``: ``depth.*``, ``novelty.*``, ...);
input tokens are ``cl100k_base`` counts of the message contents (the JSON schema is not
counted), as ``../shared/spec/reference-costs.md`` counts them. Per review means:

* depth, constructiveness, novelty: per result row (one row per review text);
* flaws: per flaw unit (one per panel pairing; the spec's "per panel unit");
* total: every call of the run divided by the number of reviews (depth rows).

It prints one table per protocol next to the spec's reference figures, with the ratios, and the
economical / reference ratios of this run, and writes the figures as JSON (``--json``).

Usage::

    .venv/bin/python benchmarks/bench_llm_cost.py [--limit N] [--json out.json] [--flaw-decisions]

``--flaw-decisions`` answers the three flaw steps with :mod:`prism_review.testing.flaw_decisions`
(decisions read off the texts, the same under both protocols), so every flaw unit is scored and
every review with a bank is mapped; the schema-built replies leave many flaw units unscored
(a validation marking a flaw valid without a severity fails its check), which hides map calls.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.data.tokens import cl100k
from prism_review.pipelines.results import read_results
from prism_review.testing import flaw_decisions as decisions
from prism_review.testing.llm_server import LLMServer

DIMENSIONS = ("depth", "novelty", "flaws", "constructiveness")
#: ../shared/spec/reference-costs.md: the reference design's calls and input tokens per review
SPEC_REFERENCE = {
    "depth": (3.00, 2751), "novelty": (61.92, 209601), "flaws": (4.90, 15756),
    "constructiveness": (1.00, 1091), "total": (70.52, 228215),
}
SEED = 7
#: the spec's novelty inputs: claims per review and candidates per paper of its run
SPEC_CLAIMS, SPEC_CANDIDATES = 3.7, 16.6


def message_tokens(body: dict[str, Any]) -> int:
    """cl100k_base tokens of the contents of a request's messages."""
    enc = cl100k()
    total = 0
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        total += len(enc.encode(content or "", disallowed_special=()))
    return total


_FENCE = re.compile(r"<<<BEGIN ([A-Z_-]+) ([0-9a-f]{16})>>>\n(.*?)\n<<<END \1 \2>>>", re.S)


def repetition(requests: list[Any]) -> dict[str, Any]:
    """Where the input tokens go, by step, and which content is sent more than once.

    ``steps``: per step, calls, all input tokens, the system prompts' tokens (the rubric and
    instructions, re-sent by every call of the step) and the fenced content's tokens by label
    (``fenced``: the paper, reviews, candidates... the step sends, first sends included). ``repeats``: per fence label (PAPER, REVIEW,
    ISSUE_BANK, ...), the tokens of fenced blocks sent again after their first send in the run
    (a fence's tag is a hash of its text, so equal tags are equal texts), and the steps sending them.
    """
    enc = cl100k()
    steps: dict[str, dict[str, Any]] = defaultdict(lambda: {"calls": 0, "tokens": 0, "system_tokens": 0,
                                                            "fenced": defaultdict(int)})
    seen: set[tuple[str, str]] = set()
    repeats: dict[str, dict[str, Any]] = defaultdict(lambda: {"tokens": 0, "blocks": 0, "steps": set()})
    for r in requests:
        if not r.path.endswith("/chat/completions"):
            continue
        st = steps[r.step or "unknown"]
        st["calls"] += 1
        st["tokens"] += message_tokens(r.body)
        for m in r.body.get("messages", []):
            text = m.get("content") if isinstance(m.get("content"), str) else ""
            if m.get("role") == "system":
                st["system_tokens"] += len(enc.encode(text, disallowed_special=()))
                continue
            for label, tag, body in _FENCE.findall(text):
                st["fenced"][label] += len(enc.encode(body, disallowed_special=()))
                if (label, tag) in seen:
                    rep = repeats[label]
                    rep["tokens"] += len(enc.encode(body, disallowed_special=()))
                    rep["blocks"] += 1
                    rep["steps"].add(r.step or "unknown")
                else:
                    seen.add((label, tag))
    return {"steps": {k: {**v, "fenced": dict(v["fenced"])} for k, v in steps.items()},
            "repeats": {k: {**v, "steps": sorted(v["steps"])} for k, v in repeats.items()}}


def run_protocol(protocol: str, limit: int | None, workdir: Path, flaw_decisions: bool = False) -> dict[str, Any]:
    """Evaluate the demo under ``protocol`` against a fresh counting server; the figures."""
    server = LLMServer(schema_seed=SEED).start()
    if flaw_decisions:  # the flaw steps answered by content (every unit ok), the rest schema-built
        server.set_responder(decisions.responder(server.default_reply))
    # report cached prefixes as a provider with automatic prompt caching does (the economical
    # run only: the server's prefix search is quadratic in the number of requests)
    server.prompt_cache = protocol == "economical"
    out = workdir / f"run-{protocol}"
    try:
        args = ["evaluate", "--judge", f"openai-compatible/bench-model@{server.base_url}",
                "--protocol", protocol, "--out", str(out), "--cache-dir", str(workdir / f"cache-{protocol}"),
                "--quiet", "--no-report"]
        if limit:
            args += ["--limit", str(limit)]
        t0 = time.perf_counter()
        res = CliRunner().invoke(app, args)
        seconds = time.perf_counter() - t0
        if res.exit_code != 0:
            raise SystemExit(f"prism evaluate --protocol {protocol} failed (rc {res.exit_code}):\n{res.output}")
        requests = list(server.requests)
    finally:
        server.stop()
    calls: dict[str, int] = defaultdict(int)
    tokens: dict[str, int] = defaultdict(int)
    steps: dict[str, int] = defaultdict(int)
    for r in requests:
        if not r.path.endswith("/chat/completions"):
            continue
        dim = (r.step or "unknown").split(".", 1)[0]
        calls[dim] += 1
        steps[r.step or "unknown"] += 1
        tokens[dim] += message_tokens(r.body)
    rows = list(read_results(out))
    per: dict[str, int] = {}
    status: dict[str, dict[str, int]] = {}
    for dim in DIMENSIONS:
        drows = [r for r in rows if r.dimension == dim]
        per[dim] = len({r.unit_key for r in drows}) if dim == "flaws" else len(drows)
        status[dim] = {s: sum(1 for r in drows if r.status == s) for s in ("ok", "unscored", "skipped", "error")}
    reviews = per["depth"]
    figures: dict[str, Any] = {}
    for dim in DIMENSIONS:
        n = per[dim] or 1
        figures[dim] = {"calls": calls[dim] / n, "input_tokens": tokens[dim] / n, "per": per[dim],
                        "status": status[dim]}
    figures["total"] = {"calls": sum(calls.values()) / (reviews or 1),
                        "input_tokens": sum(tokens.values()) / (reviews or 1), "per": reviews}
    # what the answers were: the per-review totals scale with them, the call pattern does not
    nov = [r for r in rows if r.dimension == "novelty"]
    cands: dict[str, set[str]] = defaultdict(set)
    for r in nov:
        for pr in r.extracted.get("pairs") or []:
            cands[f"{r.venue}/{r.paper_id}"].add(str(pr.get("related_paper_id")))
    inputs = {
        "claims_per_review": sum(len(r.extracted.get("claims") or []) for r in nov) / max(1, len(nov)),
        "candidates_per_paper": sum(len(v) for v in cands.values()) / max(1, len(cands)),
        "pairs": sum(len(r.extracted.get("pairs") or []) for r in nov),
    }
    stats = json.loads((out / "manifest.json").read_text()).get("totals", {}).get("judge_stats", {})
    cache = ({"cached_share": stats.get("cached_prompt_tokens", 0) / max(1, stats.get("prompt_tokens", 0))}
             if server.prompt_cache else {})
    return {"protocol": protocol, "seconds": round(seconds, 1), "figures": figures, "steps": dict(steps),
            "reviews": reviews, "where": repetition(requests),
            "prompt_cache": cache,
            "novelty_inputs": inputs,
            "unknown_step_calls": calls.get("unknown", 0), "run": str(out)}


def _row(label: str, got: dict[str, Any], ref: tuple[float, float]) -> str:
    c, t = got["calls"], got["input_tokens"]
    return (f"| {label} | {c:.2f} | {t:,.0f} | {ref[0]:.2f} | {ref[1]:,} | "
            f"{c / ref[0]:.3f} | {t / ref[1]:.3f} |")


def _print_where(res: dict[str, Any]) -> None:
    """Input tokens per evaluated review by dimension and step (absolute and share), and the
    content sent more than once in the run."""
    n = res["reviews"] or 1
    steps = res["where"]["steps"]
    total = sum(v["tokens"] for v in steps.values()) or 1
    print("\n| Step | calls/review | input tokens/review | share | of which system prompt/review |")
    print("|---|---|---|---|---|")
    for dim in DIMENSIONS:
        dsteps = {k: v for k, v in steps.items() if k.split(".", 1)[0] == dim}
        dt = sum(v["tokens"] for v in dsteps.values())
        print(f"| **{dim}** | {sum(v['calls'] for v in dsteps.values()) / n:.2f} | {dt / n:,.0f} | "
              f"{dt / total:.1%} | {sum(v['system_tokens'] for v in dsteps.values()) / n:,.0f} |")
        for k, v in sorted(dsteps.items()):
            print(f"| {k} | {v['calls'] / n:.2f} | {v['tokens'] / n:,.0f} | {v['tokens'] / total:.1%} | "
                  f"{v['system_tokens'] / n:,.0f} |")
    reps = res["where"]["repeats"]
    if reps:
        print("\nfenced content sent again after its first send (tokens per review): " + "; ".join(
            f"{label} {v['tokens'] / n:,.0f} ({v['blocks']} blocks, in {', '.join(v['steps'])})"
            for label, v in sorted(reps.items(), key=lambda kv: -kv[1]["tokens"])))


def _print_review_floor(results: dict[str, dict[str, Any]]) -> None:
    """Constructiveness: the review texts the economical calls send, per review, against the
    reference figures: no protocol that sends each review's text once can go below it."""
    eco = results["economical"]
    n = eco["figures"]["constructiveness"]["per"] or 1
    texts = sum(v["fenced"].get("REVIEW", 0) for k, v in eco["where"]["steps"].items()
                if k.startswith("constructiveness."))
    line = (f"\nconstructiveness: the review texts alone are {texts / n:,.0f} input tokens per review "
            f"({texts / n / SPEC_REFERENCE['constructiveness'][1]:.2f}x of the spec's "
            f"{SPEC_REFERENCE['constructiveness'][1]:,}")
    if "reference" in results:
        ref = results["reference"]["figures"]["constructiveness"]["input_tokens"]
        line += f", {texts / n / ref:.2f}x of this run's reference protocol's {ref:,.0f}"
    print(line + "): the floor of any protocol that sends each review once")


def print_tables(results: dict[str, dict[str, Any]]) -> None:
    for protocol, res in results.items():
        print(f"\n### protocol {protocol} ({res['seconds']} s; steps: "
              + ", ".join(f"{k} {v}" for k, v in sorted(res['steps'].items())) + ")\n")
        print("| Dimension | calls/review | input tokens/review | reference calls | reference tokens "
              "| calls ratio | tokens ratio |")
        print("|---|---|---|---|---|---|---|")
        for dim in (*DIMENSIONS, "total"):
            print(_row(dim, res["figures"][dim], SPEC_REFERENCE[dim]))
        _print_where(res)
        ni = res["novelty_inputs"]
        print(f"\nnovelty inputs: {ni['claims_per_review']:.2f} claims per review, "
              f"{ni['candidates_per_paper']:.1f} candidates per paper, {ni['pairs']} (claim, candidate) pairs "
              f"(the spec's run: {SPEC_CLAIMS} claims, {SPEC_CANDIDATES} candidates)")
        if res.get("prompt_cache"):
            print(f"prompt tokens a provider's prefix cache would serve (>= 1,024-token shared prefix, "
                  f"server's 4-character tokens): {res['prompt_cache']['cached_share']:.1%}")
        if protocol == "reference":
            steps = res["steps"]
            n = res["figures"]["novelty"]["per"] or 1
            other = (res["figures"]["novelty"]["calls"] * n - steps.get("novelty.verdict", 0)) / n
            per_pair = steps.get("novelty.verdict", 0) / max(1, ni["pairs"])
            projected = other + per_pair * SPEC_CLAIMS * SPEC_CANDIDATES
            print(f"reference novelty: {per_pair:.2f} verdict calls per pair; at the spec's inputs "
                  f"{projected:.2f} calls per review vs {SPEC_REFERENCE['novelty'][0]} "
                  f"({projected / SPEC_REFERENCE['novelty'][0] - 1:+.1%})")
    if "economical" in results:
        _print_review_floor(results)
    if {"reference", "economical"} <= set(results):
        ref, eco = results["reference"]["figures"], results["economical"]["figures"]
        print("\n### economical / reference protocol (this run)\n")
        print("| Dimension | calls ratio | tokens ratio |")
        print("|---|---|---|")
        for dim in (*DIMENSIONS, "total"):
            print(f"| {dim} | {eco[dim]['calls'] / max(ref[dim]['calls'], 1e-9):.3f} | "
                  f"{eco[dim]['input_tokens'] / max(ref[dim]['input_tokens'], 1e-9):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="at most N papers per venue (default: all)")
    parser.add_argument("--protocol", action="append", choices=["reference", "economical"],
                        help="protocol(s) to run (default both)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--flaw-decisions", action="store_true",
                        help="answer the flaw steps with testing/flaw_decisions.py (decided by content, "
                             "so every flaw unit is scored and every review mapped) instead of schema-built replies")
    parser.add_argument("--keep", type=Path, default=None, help="keep the run folders here")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "loopback")
    protocols = args.protocol or ["reference", "economical"]
    with tempfile.TemporaryDirectory(prefix="bench-cost-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        results = {p: run_protocol(p, args.limit, work, args.flaw_decisions) for p in protocols}
    print_tables(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

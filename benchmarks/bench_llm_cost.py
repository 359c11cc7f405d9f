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
from prism_review.testing import quoting
from prism_review.testing.llm_server import LLMServer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cost_dollars import bill, spec_dollars  # noqa: E402  (the benchmark's own helper)

DIMENSIONS = ("depth", "novelty", "flaws", "constructiveness")
#: ../shared/spec/reference-costs.md: the reference design's calls and input tokens per review
SPEC_REFERENCE = {
    "depth": (3.00, 2751), "novelty": (61.92, 209601), "flaws": (4.90, 15756),
    "constructiveness": (1.00, 1091), "total": (70.52, 228215),
}
SEED = 7
#: the model the dollars are priced at (list prices of prism_review.llm.pricing)
PRICE_MODEL = "gpt-4o-mini"
#: reference-costs.md: output tokens per review of the reference design's run
SPEC_OUTPUT = 11_200
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
        st = steps[step_of(r)]
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
                    rep["steps"].add(step_of(r))
                else:
                    seen.add((label, tag))
    return {"steps": {k: {**v, "fenced": dict(v["fenced"])} for k, v in steps.items()},
            "repeats": {k: {**v, "steps": sorted(v["steps"])} for k, v in repeats.items()}}


def _chat(requests: list[Any]) -> list[Any]:
    return [r for r in requests if r.path == "batch" or r.path.endswith("/chat/completions")]


def step_of(r: Any) -> str:
    """The step of a recorded request: its ``X-Prism-Step`` header, or for a batch line the
    schema name (``novelty_verdict_review``: the step name with its first ``.`` made ``_``)."""
    if r.path == "batch":
        return (r.step or "unknown").replace("_", ".", 1)
    return r.step or "unknown"


def _is_reask(body: dict[str, Any]) -> bool:
    """A re-ask (repair, check, longer budget): a follow-up carries the first reply, or the
    first ask again with more room (counted by the judge's stats, not here)."""
    return any(m.get("role") == "assistant" for m in body.get("messages", []))


def make_server(answers: str) -> LLMServer:
    """The counting server: ``quoting`` (default) answers from the prompt's texts
    (:mod:`prism_review.testing.quoting`), ``flaw-decisions`` decides only the flaw steps,
    ``schema`` builds every reply from the sent schema alone."""
    server = LLMServer(schema_seed=SEED)
    if answers == "quoting":
        server.set_responder(quoting.responder(server.default_reply))
    elif answers == "flaw-decisions":
        server.set_responder(decisions.responder(server.default_reply))
    return server.start()


def run_protocol(protocol: str, limit: int | None, workdir: Path, answers: str = "quoting", *,
                 batch: bool = False, model: str = PRICE_MODEL) -> dict[str, Any]:
    """Evaluate the demo under ``protocol`` (``--batch`` with ``batch``) against a fresh counting
    server; the figures."""
    server = make_server(answers)
    name = protocol + ("-batch" if batch else "")
    out = workdir / f"run-{name}"
    try:
        args = ["evaluate", "--judge", f"openai-compatible/{model}@{server.base_url}",
                "--protocol", protocol, "--out", str(out), "--cache-dir", str(workdir / f"cache-{name}"),
                "--quiet", "--no-report"]
        if limit:
            args += ["--limit", str(limit)]
        if batch:
            args += ["--batch"]
        t0 = time.perf_counter()
        res = CliRunner().invoke(app, args)
        seconds = time.perf_counter() - t0
        if res.exit_code != 0:
            raise SystemExit(f"prism evaluate --protocol {protocol} failed (rc {res.exit_code}):\n{res.output}")
        requests = _chat(list(server.batch_lines) + list(server.requests))
    finally:
        server.stop()
    calls: dict[str, int] = defaultdict(int)
    tokens: dict[str, int] = defaultdict(int)
    steps: dict[str, int] = defaultdict(int)
    reasks: dict[str, int] = defaultdict(int)
    for r in requests:
        step = step_of(r)
        dim = step.split(".", 1)[0]
        calls[dim] += 1
        steps[step] += 1
        reasks[step] += int(_is_reask(r.body))
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
    billed = bill([(step_of(r), r.body, r.reply or "", r.path == "batch") for r in requests], model)
    billed["per_review"] = billed["dollars"] / (reviews or 1)
    return {"protocol": protocol, "batch": batch, "seconds": round(seconds, 1), "figures": figures,
            "steps": dict(steps), "reasks": {k: v for k, v in reasks.items() if v},
            "judge_stats": {k: stats.get(k) for k in ("calls", "reasks", "batch_calls", "unscored")},
            "reviews": reviews, "where": repetition(requests), "dollars": billed,
            "novelty_inputs": inputs, "unknown_step_calls": calls.get("unknown", 0), "run": str(out),
            "estimate_units": estimate_units(requests),
            "papers": len({(r.venue, r.paper_id) for r in rows})}


def estimate_units(requests: list[Any]) -> dict[str, dict[str, float]]:
    """Per step: calls, and per call the input tokens as ``--dry-run`` counts them (4 characters
    a token, messages and schema) and the output budget: the constants of
    ``src/prism_review/cli/estimate_pattern.py``."""
    out: dict[str, dict[str, float]] = {}
    for r in requests:
        b = r.body
        row = out.setdefault(step_of(r), {"calls": 0, "tokens": 0.0, "budget": 0.0})
        row["calls"] += 1
        row["tokens"] += (len(json.dumps(b.get("messages", []), ensure_ascii=False)) // 4
                          + len(json.dumps(b.get("response_format", {}))) // 4)
        row["budget"] += int(b.get("max_completion_tokens") or b.get("max_tokens") or 0)
    for row in out.values():
        row["tokens"] /= row["calls"]
        row["budget"] /= row["calls"]
    return out


def print_calibration(res: dict[str, Any]) -> None:
    """What ``--dry-run``'s call pattern (``cli/estimate_pattern.py``) needs for this protocol:
    each step's calls per review and per paper, tokens and budget per call."""
    n, papers = res["reviews"] or 1, res["papers"] or 1
    units = res["figures"]["flaws"]["per"] or 1

    def per_unit(step: str, calls: int) -> str:
        return f" {calls / units:.3f}/flaw unit" if step.startswith("flaws.") else ""

    print(f"\n--dry-run calibration ({res['protocol']}; {n} reviews, {papers} papers, {units} flaw units; "
          "tokens as the estimate counts them): " + "; ".join(
              f"{k} {v['calls'] / n:.3f}/review {v['calls'] / papers:.2f}/paper{per_unit(k, v['calls'])} "
              f"{v['tokens']:,.0f} tok {v['budget']:,.0f} budget" for k, v in sorted(res["estimate_units"].items())))


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
    usd = res["dollars"]["steps"]

    def money(keys: list[str]) -> str:
        got = [usd[k] for k in keys if k in usd]
        out, cached, inp = (sum(g[f] for g in got) for f in ("output_tokens", "cached_tokens", "input_tokens"))
        return (f"{out / n:,.0f} | {cached / max(1, inp):.0%} | "
                f"{sum(g['dollars'] for g in got) / n * 1000:.3f}")

    print("\n| Step | calls/review | input tokens/review | share | of which system prompt/review "
          "| output tokens/review | billed input cached | $ per 1,000 reviews |")
    print("|---|---|---|---|---|---|---|---|")
    for dim in DIMENSIONS:
        dsteps = {k: v for k, v in steps.items() if k.split(".", 1)[0] == dim}
        dt = sum(v["tokens"] for v in dsteps.values())
        print(f"| **{dim}** | {sum(v['calls'] for v in dsteps.values()) / n:.2f} | {dt / n:,.0f} | "
              f"{dt / total:.1%} | {sum(v['system_tokens'] for v in dsteps.values()) / n:,.0f} | "
              f"{money(list(dsteps))} |")
        for k, v in sorted(dsteps.items()):
            print(f"| {k} | {v['calls'] / n:.2f} | {v['tokens'] / n:,.0f} | {v['tokens'] / total:.1%} | "
                  f"{v['system_tokens'] / n:,.0f} | {money([k])} |")
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
        print(f"\n### {protocol} ({res['seconds']} s; steps: "
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
        d = res["dollars"]
        print(f"billed at {d['model']} list prices: {d['input_tokens'] / n_rev(res):,.0f} input tokens per review "
              f"(schema {d['schema_tokens'] / n_rev(res):,.0f}), {d['cached_tokens'] / max(1, d['input_tokens']):.1%} "
              f"of them from the prompt cache, {d['output_tokens'] / n_rev(res):,.0f} output tokens; "
              f"${d['per_review'] * 1000:.3f} per 1,000 reviews (no cache: "
              f"${d['dollars_no_cache'] / n_rev(res) * 1000:.3f}); {d['batch_lines']} batch lines")
        if not res["batch"]:
            print_calibration(res)
        if res["reasks"]:
            print("re-asks sent (requests carrying a reply): " + ", ".join(
                f"{k} {v}" for k, v in sorted(res["reasks"].items())) + f"; judge stats: {res['judge_stats']}")
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
    print_ratios(results)


def n_rev(res: dict[str, Any]) -> int:
    return int(res["reviews"] or 1)


def print_ratios(results: dict[str, dict[str, Any]]) -> None:
    """Every run against the reference protocol of this run and the spec's reference figures:
    calls, input tokens and dollars per review (the dollars of a batch run against the live
    reference protocol, as the targets are stated)."""
    if "reference" not in results:
        return
    ref = results["reference"]
    spec_usd = spec_dollars(SPEC_REFERENCE["total"][1], SPEC_OUTPUT, ref["dollars"]["model"])
    print(f"\n### against the reference protocol of this run and the spec (dollars at "
          f"{ref['dollars']['model']}; spec: {SPEC_REFERENCE['total'][1]:,} input + {SPEC_OUTPUT:,} output "
          f"tokens per review, no cache = ${spec_usd:.6f})\n")
    print("| run | dimension | calls ÷ ref | tokens ÷ ref | calls ÷ spec | tokens ÷ spec | $ ÷ ref | $ ÷ spec |")
    print("|---|---|---|---|---|---|---|---|")
    for name, res in results.items():
        if name == "reference":
            continue
        f, rf = res["figures"], ref["figures"]
        for dim in (*DIMENSIONS, "total"):
            usd = ""
            if dim == "total":
                usd = (f"{res['dollars']['per_review'] / ref['dollars']['per_review']:.3f} | "
                       f"{res['dollars']['per_review'] / spec_usd:.3f}")
            else:
                usd = " | "
            print(f"| {name} | {dim} | {f[dim]['calls'] / max(rf[dim]['calls'], 1e-9):.3f} | "
                  f"{f[dim]['input_tokens'] / max(rf[dim]['input_tokens'], 1e-9):.3f} | "
                  f"{f[dim]['calls'] / SPEC_REFERENCE[dim][0]:.3f} | {f[dim]['input_tokens'] / SPEC_REFERENCE[dim][1]:.3f} | "
                  f"{usd} |")


RUNS = ("reference", "economical", "economical-batch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="at most N papers per venue (default: all)")
    parser.add_argument("--run", action="append", choices=[*RUNS, "pooled", "reference-batch", "pooled-batch"],
                        help=f"run(s) to measure (default: {', '.join(RUNS)}); '-batch' adds --batch")
    parser.add_argument("--answers", choices=["quoting", "flaw-decisions", "schema"], default="quoting",
                        help="what the server answers: quoting (default; novelty.paper, claims, verdicts and the "
                             "flaw steps read off the prompt's texts), flaw-decisions (only the flaw steps), "
                             "schema (every reply built from the schema alone)")
    parser.add_argument("--model", default=PRICE_MODEL, help="the model whose list prices bill the calls")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the run folders here")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "loopback")
    os.environ.setdefault("PRISM_BATCH_POLL", "0.02")
    runs = args.run or list(RUNS)
    with tempfile.TemporaryDirectory(prefix="bench-cost-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        results = {r: run_protocol(r.removesuffix("-batch"), args.limit, work, args.answers,
                                   batch=r.endswith("-batch"), model=args.model) for r in runs}
    print_tables(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

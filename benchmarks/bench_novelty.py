"""Benchmark: the novelty dimension's cost and speed, and the offline claim detector's accuracy.

Three measurements (all offline, no network):

1. ``llm`` — the novelty unit over the bundled demo through the real SDK against the loopback
   LLM server (``prism_review.testing.llm_server``), local-index retrieval, once with batched
   verdicts (``verdict_batch`` = 5, the default) and once with one call per claim × candidate
   (the reference design). A scripted responder answers every step with valid JSON (claims are
   picked verbatim from the review by the cue detector). Reports calls, tokens (the loopback
   server's estimate: prompt chars / 4) and wall seconds per review text; the server adds no
   model latency, so seconds are the pipeline's own overhead.
2. ``offline`` — the offline judge over the demo (index built on first use into a temp cache;
   the novelty embedder's vector cache emptied before each run).
3. ``disapere`` — claim detection and stance of the cue detectors against DISAPERE
   ``asp_originality`` sentences (sentence level; stance: pol_positive → novel,
   pol_negative → not_novel/somewhat_novel).

Usage::

    .venv/bin/python benchmarks/bench_novelty.py [llm] [offline] [disapere]
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from prism_review.shared_folder import SHARED

DISAPERE = Path(f"{SHARED}/data/labels/disapere")


def _user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def responder(body: dict[str, Any]) -> str:
    from prism_review.judge.novelty import cues
    from prism_review.judge.novelty.paper_side import PaperSideInput, PaperSideOutput, PaperSideStep

    name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
    user = _user(body)
    if name == "novelty_paper":
        text = user.split("<<<PAPER START>>>", 1)[1].split("<<<PAPER END>>>", 1)[0]
        step = PaperSideStep()
        out = step.finalize(PaperSideInput(text=text), PaperSideOutput())
        return json.dumps(out.model_dump(exclude={"fallback"}))
    if name == "novelty_claims":
        review = user.split("<<<REVIEW START>>>", 1)[1].split("<<<REVIEW END>>>", 1)[0]
        claims = [{"claim_id": "", **c} for c in cues.detect_claims(review)]
        return json.dumps({"novelty_claims": claims, "all_citations_raw": cues.citations_in(review)})
    cid = re.search(r"Review claim (\S+):", user).group(1)  # type: ignore[union-attr]
    ids = re.findall(r"Related work (\S+):\n<<<RELATED START>>>", user)
    labels = ["SUPPORTED", "AMBIGUOUS", "UNSUPPORTED", "OVERSTATED"]

    def verdict(i: int, rid: str) -> dict[str, Any]:
        lab = labels[(len(rid) + i) % 4]
        return {"review_sentence_id": cid, "related_paper_id": rid, "classification": {"claim": 1, "proof": 0},
                "stance_alignment": None, "calibration": None, "score": None, "label": lab,
                "explanation": "The related work describes a closely related mechanism for the same task."}

    if name == "novelty_verdict_batch":
        return json.dumps({"verdicts": [verdict(i, r) for i, r in enumerate(ids)]})
    return json.dumps(verdict(0, ids[0]))


async def _llm_once(batch: int, cache: Path) -> dict[str, Any]:
    from prism_review.llm import make_judge
    from prism_review.pipelines.runner import EvalOptions, run_evaluation
    from prism_review.testing.llm_server import LLMServer

    with LLMServer() as server:
        server.set_responder(responder)
        judge = make_judge(f"openai-compatible/bench@{server.base_url}", api_key="x", cache_dir=cache / f"llm{batch}",
                           no_cache=True)
        out = Path(tempfile.mkdtemp(prefix=f"nov-bench-{batch}-"))
        t0 = time.perf_counter()
        try:
            await run_evaluation(EvalOptions(out=out, dimensions=["novelty"], judge="bench", concurrency=8,
                                             settings={"verdict_batch": batch}), judge=judge)
        finally:
            await judge.aclose()
        secs = time.perf_counter() - t0
        steps = Counter(r.step for r in server.requests)
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().split("\n") if x.strip()]
    claims = sum(r["metrics"].get("n_claims") or 0 for r in rows)
    pairs = sum(r["extracted"]["stats"]["pairs_attempted"] for r in rows if "stats" in r["extracted"])
    tokens = sum(r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in rows)
    calls = sum(steps.values())
    verdict_calls = steps.get("novelty.verdict_batch", 0) + steps.get("novelty.verdict", 0)
    verdict_tokens = tokens  # rows carry claims + verdict usage; the paper side is memoised apart
    n = len(rows)
    return {"verdict_batch": batch, "review_texts": n, "claims": claims, "pairs": pairs, "calls": calls,
            "calls_by_step": dict(steps), "calls_per_review": round(calls / n, 2),
            "verdict_calls_per_claim": round(verdict_calls / max(claims, 1), 2),
            "tokens_per_review": round(verdict_tokens / n), "tokens_per_claim": round(verdict_tokens / max(claims, 1)),
            "seconds_total": round(secs, 2), "seconds_per_review": round(secs / n, 3)}


def bench_llm() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PRISM_CACHE_DIR"] = str(Path(tmp) / "cache")
        return [asyncio.run(_llm_once(b, Path(tmp))) for b in (5, 1)]


def bench_offline() -> dict[str, Any]:
    from prism_review.pipelines.runner import EvalOptions, run_evaluation

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PRISM_CACHE_DIR"] = str(Path(tmp) / "cache")
        out: dict[str, Any] = {}
        from prism_review.judge.novelty.embedder import load_embedder

        for label in ("first run (index built)", "second run (index cached)"):
            run = Path(tmp) / label.split()[0]
            load_embedder().clear_cache()  # no vector of the first run is reused
            t0, c0 = time.perf_counter(), time.process_time()
            res = asyncio.run(run_evaluation(EvalOptions(out=run, dimensions=["novelty"], judge="offline")))
            out[label] = {"units": res.units_done, "wall_s": round(time.perf_counter() - t0, 2),
                          "cpu_s": round(time.process_time() - c0, 2)}
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().split("\n") if x.strip()]
        out["review_texts"] = len(rows)
        out["cpu_s_per_review"] = round(out["second run (index cached)"]["cpu_s"] / len(rows), 4)
        return out


def bench_disapere() -> dict[str, Any]:
    from prism_review.judge.novelty.cues import (
        REFERENCE_CUE,
        offline_score,
        offline_stance,
        stance_of,
    )

    out: dict[str, Any] = {}
    for split in ("train", "dev"):
        rows = [json.loads(x) for x in (DISAPERE / f"{split}.jsonl").read_text(encoding="utf-8").split("\n") if x.strip()]
        for name, detect, stance in (("reference_cue", lambda t: bool(REFERENCE_CUE.search(t)), stance_of),
                                     ("offline_detector", lambda t: offline_score(t) >= 2, offline_stance)):
            tp = fp = fn = 0
            agree = total = 0
            for r in rows:
                for s in r["sentences"]:
                    gold = s["aspect"] == "asp_originality"
                    pred = detect(s["text"])
                    tp += gold and pred
                    fp += pred and not gold
                    fn += gold and not pred
                    if gold and s["polarity"] in ("pol_positive", "pol_negative"):
                        want = "novel" if s["polarity"] == "pol_positive" else "neg"
                        got = stance(s["text"])
                        got = "neg" if got in ("not_novel", "somewhat_novel") else got
                        agree += want == got
                        total += 1
            p = tp / max(tp + fp, 1)
            rec = tp / max(tp + fn, 1)
            out[f"{split}/{name}"] = {"precision": round(p, 3), "recall": round(rec, 3),
                                      "f1": round(2 * p * rec / max(p + rec, 1e-9), 3),
                                      "stance_accuracy": round(agree / max(total, 1), 3), "stance_n": total,
                                      "originality_sentences": tp + fn}
    return out


def main(argv: list[str]) -> None:
    which = set(argv) or {"llm", "offline", "disapere"}
    if "disapere" in which and DISAPERE.exists():
        print(json.dumps({"disapere": bench_disapere()}, indent=1))
    if "offline" in which:
        print(json.dumps({"offline": bench_offline()}, indent=1))
    if "llm" in which:
        print(json.dumps({"llm": bench_llm()}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Agreement of the flaw ``validate`` step with RevUtil's human reliability labels.

Data: ``demo-sources/revutil-llm-reviews/llm_reviews.jsonl`` — 20 ICLR papers (``body_text``),
each reviewed by three LLMs whose reviews are split into segments labelled ``reliability``
Yes/No by people. The segments under weakness-like headings (Weaknesses, limitations,
concerns, questions, suggestions) are the criticisms a flaw validator is meant for (284 of
them, 46% No): each becomes one micro-flaw (quote = the segment, attributed to
``LLM_Reviewer``), and each (paper, LLM) review's criticisms go through the judge's
``flaws.validate`` step in one call with the paper text. ``is_valid`` is compared with
``reliability`` (valid ↔ Yes). Strength and summary segments are not flaws and are not sent.
Unscored answers are left out of the figures and counted under ``n.*.unscored``.

:func:`cross_validate` measures the offline judge with its thresholds chosen on held-out papers
(grouped k-fold), for an honest figure when tuning on this development set.

What the labels reward (measured, 2026-11): 63 of the 130 unreliable criticisms are
"Out-of-scope", the rest Vague, Neglect, Inexpert, Misunderstanding, Unstated, Superficial,
Contradiction (≤ 11 each). Paper-grounded features carry no signal here: per-segment AUC for
"unreliable" of content-word overlap with the paper 0.53, paper-specific terms found 0.52,
"claimed-missing" terms found in one paper sentence 0.51 (it fires on 0 of the 10 Neglect
items), best TF-IDF paper-sentence similarity 0.49; a logistic model on them scores 0.525
accuracy in 5-fold paper-grouped CV, below always-valid (0.542). Surface style does better
(segment length AUC 0.64, hedging 0.60; grouped CV 0.585–0.599) but not significantly better
than the current rules (McNemar p = 0.33–0.52 on 284 items), so no model was fitted into the
judge.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from prism_review import progress
from prism_review.agreement import register_dataset
from prism_review.agreement._validity import accuracy_macro_f1
from prism_review.data.jsonl import read_jsonl
from prism_review.judge.base import Judge
from prism_review.judge.flaws.models import DEFAULT_PAPER_CHARS, MicroFlaw, ValidateInput
from prism_review.judge.flaws.steps import ValidateStep
from prism_review.judge.flaws.topics import topic_for
from prism_review.judge.flaws.validity import ValidityParams

REVIEWERS = ("claude_opus", "gpt4", "gemini_pro_1.5")
_WEAK = re.compile(r"weak|limitation|concern|question|suggest|improv", re.I)


def is_heading(text: str) -> bool:
    """A segment that is only a section title (``Weaknesses:``)."""
    t = text.strip()
    return t.endswith(":") and len(t) < 90


def review_items(review: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(segment text, under a weakness-like heading?, gold "valid"/"invalid") per segment."""
    out = []
    section = ""
    for seg in review.get("review") or []:
        text = str(seg.get("segment_text") or "").strip()
        if not text:
            continue
        if is_heading(text):
            section = text
            continue
        rel = seg.get("reliability")
        if rel not in ("Yes", "No"):
            continue
        out.append((text, bool(_WEAK.search(section)), "valid" if rel == "Yes" else "invalid"))
    return out


def validate_input(
    paper_text: str, items: list[tuple[str, bool, str]], max_chars: int
) -> ValidateInput:
    """One ``flaws.validate`` input holding every segment of one review as a micro-flaw."""
    flaws = [
        MicroFlaw(
            flaw_id=f"S{i:03d}",
            macro_topic=topic_for(text),
            core_summary=text,
            raw_arguments={"LLM_Reviewer": text},
        )
        for i, (text, _, _) in enumerate(items, start=1)
    ]
    return ValidateInput(paper_text=paper_text, micro_flaws=flaws, max_paper_chars=max_chars)


async def collect(
    path: Path,
    judge: Judge,
    limit: int | None,
    step: ValidateStep | None = None,
    max_chars: int = DEFAULT_PAPER_CHARS,
) -> list[dict[str, Any]]:
    """Per segment: paper index, reviewer, weakness flag, gold and predicted label (or None)."""
    rows = read_jsonl(path)
    if limit is not None:
        rows = rows[:limit]
    step = step or ValidateStep()
    out = []
    for pi, paper in enumerate(progress.iterate(rows, "revutil papers")):
        body = str(paper.get("body_text") or "")
        for rev in REVIEWERS:
            items = [it for it in review_items(paper.get(rev) or {}) if it[1]]
            if not items:
                continue
            inp = validate_input(body, items, max_chars)
            res = await judge.run(step, inp)
            evals = res.output.evaluations if res.ok and res.output is not None else {}
            for f, (_, weak, gold) in zip(inp.micro_flaws, items, strict=True):
                ev = evals.get(f.flaw_id)
                pred = None if ev is None else ("valid" if ev.is_valid else "invalid")
                out.append({"paper": pi, "reviewer": rev, "weak": weak, "gold": gold, "pred": pred})
    return out


def score(
    records: list[dict[str, Any]], prefix: str = "revutil_llm_reviews"
) -> dict[str, float | int | None]:
    """Accuracy and macro-F1 on the criticism segments, with counts."""
    scored = [r for r in records if r["pred"] is not None]
    acc, f1 = accuracy_macro_f1([r["gold"] for r in scored], [r["pred"] for r in scored])
    return {
        f"{prefix}.validity.accuracy": acc,
        f"{prefix}.validity.macro_f1": f1,
        f"n.{prefix}.segments": len(records),
        f"n.{prefix}.scored": len(scored),
        f"n.{prefix}.unscored": len(records) - len(scored),
        f"n.{prefix}.gold_invalid": sum(r["gold"] == "invalid" for r in records),
        f"n.{prefix}.pred_invalid": sum(r["pred"] == "invalid" for r in scored),
        f"n.{prefix}.papers": len({r["paper"] for r in records}),
    }


def default_grid() -> list[ValidityParams]:
    """The offline thresholds searched by :func:`cross_validate`."""
    grid = []
    for spec in (True, False):
        for ov in (0.0, 0.3, 0.5, 0.7):
            for hits in (2, 3, 5):
                for nums in (True, False):
                    grid.append(
                        ValidityParams(
                            check_speculative=spec,
                            min_overlap=ov,
                            absence_hits=hits,
                            check_numbers=nums,
                        )
                    )
    return grid


async def cross_validate(
    path: Path, folds: int = 5, grid: list[ValidityParams] | None = None
) -> dict[str, Any]:
    """Grouped k-fold over papers: per fold, pick the grid point with the best macro-F1 on the
    other papers and predict the held-out papers with it; figures pool the held-out predictions.
    """
    from prism_review.judge.base import OfflineJudge

    grid = grid or default_grid()
    runs = [await collect(path, OfflineJudge(), None, ValidateStep(p)) for p in grid]
    papers = sorted({r["paper"] for r in runs[0]})
    pooled: list[dict[str, Any]] = []
    chosen = []
    for k in range(folds):
        test = {p for i, p in enumerate(papers) if i % folds == k}

        def f1_on(recs: list[dict[str, Any]], test: set[int] = test) -> float:
            train = [r for r in recs if r["paper"] not in test]
            return (
                accuracy_macro_f1([r["gold"] for r in train], [r["pred"] for r in train])[1] or 0.0
            )

        best = max(range(len(grid)), key=lambda g: f1_on(runs[g]))
        chosen.append(asdict(grid[best]))
        pooled.extend(r for r in runs[best] if r["paper"] in test)
    out: dict[str, Any] = dict(score(pooled, prefix="revutil_llm_reviews.cv"))
    out["chosen"] = chosen
    return out


@register_dataset("revutil-llm-reviews")
async def measure(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """Validity agreement of ``judge`` on the RevUtil LLM-review reliability labels."""
    return score(await collect(Path(path), judge, limit))


if __name__ == "__main__":  # pragma: no cover
    import asyncio
    import json
    import sys

    print(json.dumps(asyncio.run(cross_validate(Path(sys.argv[1]))), indent=1))

"""Agreement of the flaw ``validate`` step with RevUtil's human reliability labels.

Data: ``demo-sources/revutil-llm-reviews/llm_reviews.jsonl`` — 20 ICLR papers (``body_text``),
each reviewed by three LLMs whose reviews are split into segments labelled ``reliability``
Yes/No by people. Every non-heading segment becomes one micro-flaw (quote = the segment,
attributed to ``LLM_Reviewer``) and each (paper, LLM) review goes through the judge's
``flaws.validate`` step in one call with the paper text. The judge's ``is_valid`` is compared
with ``reliability`` (valid ↔ Yes).

Headline keys (``revutil_llm_reviews.validity.*``) use the segments under weakness-like headings
(Weaknesses, limitations, concerns, questions, suggestions): those are the criticisms a flaw
validator is meant for (and they are balanced: about 46% No). The same figures over every
segment, strengths and summaries included, are under ``revutil_llm_reviews.all_segments.*``.
Unscored answers are left out of the figures and counted under ``n.*unscored``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from prism_review.agreement import read_jsonl, register_dataset
from prism_review.agreement._validity import accuracy_macro_f1
from prism_review.judge.base import Judge
from prism_review.judge.flaws.models import DEFAULT_PAPER_CHARS, MicroFlaw, ValidateInput
from prism_review.judge.flaws.steps import ValidateStep
from prism_review.judge.flaws.topics import topic_for

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
    for pi, paper in enumerate(rows):
        body = str(paper.get("body_text") or "")
        for rev in REVIEWERS:
            items = review_items(paper.get(rev) or {})
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
    """Accuracy and macro-F1 on weakness segments and on all segments, with counts."""
    out: dict[str, float | int | None] = {}
    for name, keep in (
        ("validity", lambda r: r["weak"]),
        ("all_segments.validity", lambda r: True),
    ):
        sel = [r for r in records if keep(r)]
        scored = [r for r in sel if r["pred"] is not None]
        acc, f1 = accuracy_macro_f1([r["gold"] for r in scored], [r["pred"] for r in scored])
        out[f"{prefix}.{name}.accuracy"] = acc
        out[f"{prefix}.{name}.macro_f1"] = f1
        tag = name.replace(".validity", "").replace("validity", "weakness")
        out[f"n.{prefix}.{tag}.segments"] = len(sel)
        out[f"n.{prefix}.{tag}.scored"] = len(scored)
        out[f"n.{prefix}.{tag}.unscored"] = len(sel) - len(scored)
        out[f"n.{prefix}.{tag}.gold_invalid"] = sum(r["gold"] == "invalid" for r in sel)
        out[f"n.{prefix}.{tag}.pred_invalid"] = sum(r["pred"] == "invalid" for r in scored)
    out[f"n.{prefix}.papers"] = len({r["paper"] for r in records})
    return out


@register_dataset("revutil-llm-reviews")
async def measure(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """Validity agreement of ``judge`` on the RevUtil LLM-review reliability labels."""
    return score(await collect(Path(path), judge, limit))

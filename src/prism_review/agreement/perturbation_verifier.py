"""Agreement of the flaw ``validate`` step with OpenAIReview's hand-labelled verifier gold set.

Data: ``perturbation/verifier_gold_dev.jsonl`` — 89 edits injected into math papers, each with
the generator's claim of why the edit is wrong and a human verdict: ``substantive`` (a real
error), ``typo-shaped`` (a reader repairs it silently) or ``not-an-error``.

How an item becomes a validate call: the micro-flaw is the generator's criticism ("the paper
writes <perturbed>; <why_wrong>", quoting the perturbed text), and the paper text is what the
gold set holds of the paper: the generator's supporting quote from the paper followed by the
perturbed passage. The full papers are not part of the set.

Mapping (binary, the headline ``perturbation_verifier.validity.*``): ``is_valid`` ↔
``substantive``; ``typo-shaped`` and ``not-an-error`` count as not valid, since a silently
repaired typo is not a flaw that would change a reader's conclusions. A three-way view
(``perturbation_verifier.label3.*``) also reads the severity: valid Critical ↔ substantive,
valid Minor ↔ typo-shaped, not valid ↔ not-an-error. ``perturbation_verifier.substantive.*``
is the binary question read from the same answer: predicted substantive ↔ valid *and* Critical
(a judge that calls a typo a valid Minor flaw is right by PRISM's ontology but wrong under the
headline mapping; both are reported).

:func:`cross_validate` picks the offline judge's formula-edit similarity threshold on held-out
papers (grouped k-fold, the synthetic items form one group) for an honest figure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review import progress
from prism_review.agreement import register_dataset
from prism_review.agreement._validity import accuracy_macro_f1
from prism_review.data.jsonl import read_jsonl
from prism_review.judge.base import Judge
from prism_review.judge.flaws.models import MicroFlaw, ValidateInput
from prism_review.judge.flaws.steps import ValidateStep
from prism_review.judge.flaws.topics import topic_for
from prism_review.judge.flaws.validity import ValidityParams


def item_input(item: dict[str, Any]) -> ValidateInput:
    """The ``flaws.validate`` input for one gold item (one micro-flaw)."""
    perturbed = str(item.get("perturbed") or "")
    why = str(item.get("why_wrong") or "")
    quote = str(item.get("contradicts_quote") or "")
    summary = f"The paper writes {perturbed.strip()}; {why.strip()}"
    flaw = MicroFlaw(
        flaw_id="F01",
        macro_topic=topic_for(why),
        core_summary=summary,
        raw_arguments={"LLM_Reviewer": perturbed},
    )
    paper = "\n\n".join(p for p in (quote, perturbed) if p.strip())
    return ValidateInput(paper_text=paper, micro_flaws=[flaw])


#: the verifier gold set's labels (``binary`` maps all but the first to "invalid")
GOLD_LABELS = ("substantive", "typo-shaped", "not-an-error")


def binary(gold_label: str) -> str:
    return "valid" if gold_label == "substantive" else "invalid"


def three_way(is_valid: bool, severity: str) -> str:
    if not is_valid:
        return "not-an-error"
    return "substantive" if severity == "Critical" else "typo-shaped"


async def collect(
    rows: list[dict[str, Any]], judge: Judge, step: ValidateStep | None = None
) -> list[dict[str, Any]]:
    """Per item: paper group, gold label and the judge's (is_valid, severity) or None."""
    step = step or ValidateStep()
    out = []
    for item in progress.iterate(rows, "verifier items"):
        res = await judge.run(step, item_input(item))
        ev = res.output.evaluations.get("F01") if res.ok and res.output is not None else None
        out.append(
            {
                "paper": str(item.get("paper")),
                "gold": str(item.get("gold_label")),
                "pred": None if ev is None else (ev.is_valid, ev.severity),
            }
        )
    return out


def score(recs: list[dict[str, Any]], prefix: str = "perturbation_verifier") -> dict[str, Any]:
    """The binary, substantive and three-way views, with counts."""
    scored = [r for r in recs if r["pred"] is not None]
    gold2 = [binary(r["gold"]) for r in scored]
    pred2 = ["valid" if r["pred"][0] else "invalid" for r in scored]
    preds = ["valid" if r["pred"] == (True, "Critical") else "invalid" for r in scored]
    gold3 = [r["gold"] for r in scored]
    pred3 = [three_way(*r["pred"]) for r in scored]
    acc2, f12 = accuracy_macro_f1(gold2, pred2)
    accs, f1s = accuracy_macro_f1(gold2, preds)
    acc3, f13 = accuracy_macro_f1(gold3, pred3)
    return {
        f"{prefix}.validity.accuracy": acc2,
        f"{prefix}.validity.macro_f1": f12,
        f"{prefix}.substantive.accuracy": accs,
        f"{prefix}.substantive.macro_f1": f1s,
        f"{prefix}.label3.accuracy": acc3,
        f"{prefix}.label3.macro_f1": f13,
        f"n.{prefix}.items": len(recs),
        f"n.{prefix}.scored": len(scored),
        f"n.{prefix}.unscored": len(recs) - len(scored),
        f"n.{prefix}.gold_substantive": sum(g == "valid" for g in gold2),
        f"n.{prefix}.pred_valid": sum(p == "valid" for p in pred2),
    }


@register_dataset("perturbation-verifier")
async def measure(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """Validity agreement of ``judge`` on the verifier gold set."""
    from prism_review.data.jsonl import iter_jsonl
    from prism_review.data.skips import SkipLog
    from prism_review.guards.errors import DataError

    rows = []
    for lineno, row in iter_jsonl(Path(path), SkipLog(strict=True)):
        for key in ("perturbed", "why_wrong"):  # else scored as garbage
            if not isinstance(row.get(key), str):
                raise DataError(f"{path} [line {lineno}]", "missing or not a string", field=key)
        if row.get("gold_label") not in GOLD_LABELS:
            raise DataError(f"{path} [line {lineno}]", f"expected one of {', '.join(GOLD_LABELS)}, "
                            f"got {row.get('gold_label')!r}", field="gold_label")
        rows.append(row)
    if limit is not None:
        rows = rows[:limit]
    return score(await collect(rows, judge))


async def cross_validate(
    path: Path, folds: int = 5, grid: tuple[float, ...] = (40.0, 50.0, 60.0, 70.0, 80.0)
) -> dict[str, Any]:
    """Grouped k-fold over papers: per fold, the edit-similarity threshold with the best
    headline macro-F1 on the other papers predicts the held-out papers; figures pool them."""
    from prism_review.judge.base import OfflineJudge

    rows = read_jsonl(Path(path))
    runs = [
        await collect(rows, OfflineJudge(), ValidateStep(ValidityParams(edit_similarity=g)))
        for g in grid
    ]
    papers = sorted({r["paper"] for r in runs[0]})
    pooled: list[dict[str, Any]] = []
    chosen = []
    for k in range(folds):
        test = {p for i, p in enumerate(papers) if i % folds == k}
        train_f1 = [
            score([r for r in run if r["paper"] not in test])[
                "perturbation_verifier.validity.macro_f1"
            ]
            or 0.0
            for run in runs
        ]
        best = max(range(len(grid)), key=lambda g: train_f1[g])
        chosen.append(grid[best])
        pooled.extend(r for r in runs[best] if r["paper"] in test)
    out: dict[str, Any] = dict(score(pooled, prefix="perturbation_verifier.cv"))
    out["chosen_edit_similarity"] = chosen
    return out


if __name__ == "__main__":  # pragma: no cover
    import asyncio
    import json
    import sys

    print(json.dumps(asyncio.run(cross_validate(Path(sys.argv[1]))), indent=1))

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
valid Minor ↔ typo-shaped, not valid ↔ not-an-error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review.agreement import read_jsonl, register_dataset
from prism_review.agreement._validity import accuracy_macro_f1
from prism_review.judge.base import Judge
from prism_review.judge.flaws.models import MicroFlaw, ValidateInput
from prism_review.judge.flaws.steps import ValidateStep
from prism_review.judge.flaws.topics import topic_for


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


def binary(gold_label: str) -> str:
    return "valid" if gold_label == "substantive" else "invalid"


def three_way(is_valid: bool, severity: str) -> str:
    if not is_valid:
        return "not-an-error"
    return "substantive" if severity == "Critical" else "typo-shaped"


@register_dataset("perturbation-verifier")
async def measure(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """Validity agreement of ``judge`` on the verifier gold set."""
    rows = read_jsonl(Path(path))
    if limit is not None:
        rows = rows[:limit]
    step = ValidateStep()
    gold2, pred2, gold3, pred3 = [], [], [], []
    unscored = 0
    for item in rows:
        res = await judge.run(step, item_input(item))
        ev = res.output.evaluations.get("F01") if res.ok and res.output is not None else None
        if ev is None:
            unscored += 1
            continue
        label = str(item.get("gold_label"))
        gold2.append(binary(label))
        pred2.append("valid" if ev.is_valid else "invalid")
        gold3.append(label)
        pred3.append(three_way(ev.is_valid, ev.severity))
    acc2, f12 = accuracy_macro_f1(gold2, pred2)
    acc3, f13 = accuracy_macro_f1(gold3, pred3)
    return {
        "perturbation_verifier.validity.accuracy": acc2,
        "perturbation_verifier.validity.macro_f1": f12,
        "perturbation_verifier.label3.accuracy": acc3,
        "perturbation_verifier.label3.macro_f1": f13,
        "n.perturbation_verifier.items": len(rows),
        "n.perturbation_verifier.scored": len(gold2),
        "n.perturbation_verifier.unscored": unscored,
        "n.perturbation_verifier.gold_substantive": sum(g == "valid" for g in gold2),
        "n.perturbation_verifier.pred_valid": sum(p == "valid" for p in pred2),
    }

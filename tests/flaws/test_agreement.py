"""Validity agreement datasets: scoring by hand, offline runs on small files, an LLM run."""

from __future__ import annotations

import json
from pathlib import Path

from prism_review.agreement import get_dataset
from prism_review.agreement._validity import accuracy_macro_f1
from prism_review.judge.base import OfflineJudge

from .test_steps_offline import PAPER


def test_accuracy_macro_f1_by_hand() -> None:
    gold = ["valid", "valid", "invalid", "invalid"]
    pred = ["valid", "invalid", "invalid", "invalid"]
    # valid: tp1 fp0 fn1 -> 2/3; invalid: tp2 fp1 fn0 -> 4/5
    assert accuracy_macro_f1(gold, pred) == (0.75, round((2 / 3 + 4 / 5) / 2, 4))
    assert accuracy_macro_f1([], []) == (None, None)


def _revutil_file(tmp: Path) -> Path:
    def seg(text: str, rel: str) -> dict:
        return {"segment_text": text, "reliability": rel, "error_type": float("nan")}

    review = {
        "review": [
            seg("Summary of the Paper:", "Yes"),
            seg("The paper studies sparse attention.", "Yes"),
            seg("Weaknesses:", "Yes"),
            seg("There is no ablation of the gating module.", "No"),
            seg("The gating module in Section 3 is not motivated.", "Yes"),
        ]
    }
    row = {
        "title": "t",
        "decision": "accepted",
        "body_text": PAPER,
        "claude_opus": review,
        "gpt4": {"review": []},
        "gemini_pro_1.5": {"review": []},
    }
    path = tmp / "llm_reviews.jsonl"
    path.write_text(json.dumps(row).replace('"NaN"', "NaN") + "\n", encoding="utf-8")
    return path


async def test_revutil_llm_reviews_offline(tmp_path: Path) -> None:
    res = await get_dataset("revutil-llm-reviews")(_revutil_file(tmp_path), OfflineJudge(), None)
    assert res["n.revutil_llm_reviews.segments"] == 2  # the summary sentence is not sent
    assert res["revutil_llm_reviews.validity.accuracy"] == 1.0  # both decided correctly
    assert res["revutil_llm_reviews.validity.macro_f1"] == 1.0
    assert res["n.revutil_llm_reviews.unscored"] == 0


GOLD = [
    {
        "idx": "0",
        "perturbed": "$n(L-1)$",
        "original": "$n(L+1)$",
        "why_wrong": "count is n(L+1)",
        "contradicts_quote": "the signal has $n(L+1)$ components.",
        "gold_label": "substantive",
    },
    {
        "idx": "1",
        "perturbed": "$w_k$",
        "original": "$w_1$",
        "why_wrong": "index is 1",
        "contradicts_quote": "windows $w_1$ and $w_0$.",
        "gold_label": "typo-shaped",
    },
]


def _gold_file(tmp: Path) -> Path:
    path = tmp / "gold.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in GOLD) + "\n", encoding="utf-8")
    return path


async def test_perturbation_verifier_offline_counts(tmp_path: Path) -> None:
    res = await get_dataset("perturbation-verifier")(_gold_file(tmp_path), OfflineJudge(), None)
    assert res["n.perturbation_verifier.items"] == 2
    assert res["n.perturbation_verifier.scored"] == 2
    assert res["n.perturbation_verifier.gold_substantive"] == 1
    # the quote restates the formula with "+" (a quantity edit: valid Critical) and with
    # "w_1" (a renamed index: valid Minor), so both are right in the substantive and 3-way
    # views, while the headline (valid ↔ substantive) counts the valid typo as wrong
    assert res["perturbation_verifier.substantive.accuracy"] == 1.0
    assert res["perturbation_verifier.label3.accuracy"] == 1.0
    assert res["perturbation_verifier.validity.accuracy"] == 0.5


async def test_perturbation_verifier_cross_validation_groups_papers(tmp_path: Path) -> None:
    from prism_review.agreement.perturbation_verifier import cross_validate

    path = tmp_path / "gold.jsonl"
    rows = [dict(g, paper=f"p{i}") for i, g in enumerate(GOLD)]
    path.write_text("\n".join(json.dumps(g) for g in rows) + "\n", encoding="utf-8")
    res = await cross_validate(path, folds=2, grid=(60.0, 90.0))
    assert res["n.perturbation_verifier.cv.scored"] == 2
    assert len(res["chosen_edit_similarity"]) == 2


async def test_perturbation_verifier_through_llm(
    tmp_path: Path, llm_server, loopback_judge
) -> None:
    llm_server.script(
        json.dumps({"evaluations": {"F01": {"is_valid": True, "severity": "Critical"}}}),
        "not json at all",  # unparseable, and the re-ask too: unscored, never counted
        "still not json",
    )
    res = await get_dataset("perturbation-verifier")(_gold_file(tmp_path), loopback_judge(), None)
    assert res["n.perturbation_verifier.scored"] == 1
    assert res["n.perturbation_verifier.unscored"] == 1
    assert res["perturbation_verifier.validity.accuracy"] == 1.0
    assert "[PAPER TEXT]" in llm_server.requests[0].messages[1]["content"]

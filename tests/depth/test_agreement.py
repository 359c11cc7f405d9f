"""DISAPERE / SubstanReview agreement: label rules and exact F1 on tiny files, any judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from prism_review.agreement import get_dataset
from prism_review.judge.base import JudgeStep, StepResult
from prism_review.judge.depth.data import grounding_of_revutil, substan_sentence_labels
from prism_review.judge.depth.scoring import macro_f1


def test_macro_f1_by_hand() -> None:
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")]
    # F1(a) = 2*1/(2+0+1) = 2/3 ; F1(b) = 2*2/(4+1+0) = 4/5
    assert macro_f1(pairs, ["a", "b"]) == pytest.approx((2 / 3 + 4 / 5) / 2)
    # a prediction outside the label set is a miss for its gold class
    assert macro_f1([("a", "Other"), ("b", "b")], ["a", "b"]) == pytest.approx(0.5)
    assert macro_f1([], ["a"]) is None


def test_substan_coverage_rule() -> None:
    review = "Good idea overall. The proof of Lemma 2 fails for n = 1. Thanks."
    spans = [
        {"start": 0, "end": 9, "kind": "claim"},  # "Good idea" = 8 of 16 non-space chars
        {"start": 19, "end": 57, "kind": "evidence"},  # the whole second sentence
        {"start": 58, "end": 60, "kind": "major_claim"},  # "Th" of "Thanks." (2 of 7)
    ]
    labels = substan_sentence_labels(review, spans)
    assert labels == [
        ("Good idea overall.", "claim"),  # exactly 50 % -> claim
        ("The proof of Lemma 2 fails for n = 1.", "evidence"),
        ("Thanks.", "none"),
    ]
    major = substan_sentence_labels("Accept.", [{"start": 0, "end": 7, "kind": "major_claim"}])
    assert major == [("Accept.", "claim")]


def test_revutil_grounding_mapping() -> None:
    assert [grounding_of_revutil(v) for v in (1, 2, 3, 4, 5, None, "X")] == [
        0,
        0,
        1,
        1,
        2,
        None,
        None,
    ]


class KeywordJudge:
    """A transparent judge: Premise iff the unit has a digit; argumentative iff it has no '#'."""

    name = "keyword"
    mode = "llm"

    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        d = inp.model_dump()
        if step.name == "depth.segment":
            raw = {
                "arguments": [
                    {"index": i, "argument": s}
                    for i, s in enumerate(d["sentences"])
                    if not s.startswith("#")
                ]
            }
        else:
            raw = {
                "classified_arguments": [
                    {
                        "index": u["index"],
                        "role": "Premise" if any(c.isdigit() for c in u["text"]) else "Claim",
                        "aspect": "Clarity" if "writ" in u["text"] else "Soundness",
                    }
                    for u in d["units"]
                ]
            }
        return StepResult(
            step=step.name, output=step.finalize(inp, step.Output.model_validate(raw))
        )

    def describe(self) -> dict[str, Any]:
        return {"judge": self.name}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _s(text: str, action: str, aspect: str = "none") -> dict:
    return {"text": text, "review_action": action, "aspect": aspect, "suffix": ""}


async def test_disapere_exact(tmp_path: Path) -> None:
    rec = {
        "review_id": "r1",
        "sentences": [
            _s("# Summary", "arg_structuring"),
            _s("The writing is poor.", "arg_evaluative", "asp_clarity"),
            _s("Table 3 has 2 errors.", "arg_fact"),
            _s("Accuracy drops by 5 points.", "arg_evaluative", "asp_soundness-correctness"),
            _s("Compare with prior work.", "arg_request", "asp_meaningful-comparison"),
            _s("Thanks!", "arg_social"),
        ],
    }
    m = await get_dataset("disapere")(_write(tmp_path / "d.jsonl", [rec]), KeywordJudge(), None)
    # role pairs (gold, pred): (C,C) (P,P) (C,P) (C,C) -> F1 C = 4/5, F1 P = 2/3
    assert m["disapere.role.macro_f1"] == pytest.approx((4 / 5 + 2 / 3) / 2)
    # aspect: Clarity->Clarity, Soundness->Soundness, Contribution->Soundness
    # F1 Clarity 1, Soundness 2/3, Contribution 0
    assert m["disapere.aspect3.macro_f1"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    # argumentative: gold [n,y,y,y,y,n], pred [n,y,y,y,y,y]: F1 yes = 8/9, F1 no = 2/3
    assert m["disapere.argumentative.macro_f1"] == pytest.approx((8 / 9 + 2 / 3) / 2)
    assert m["n.disapere.role"] == 4 and m["n.disapere.aspect3"] == 3


async def test_substanreview_exact(tmp_path: Path) -> None:
    review = "# Notes. The idea is weak. Results drop 4 points. Nice writing."
    spans = [
        {"start": 9, "end": 26, "kind": "claim", "tag": "Eval_neg_1"},
        {"start": 27, "end": 50, "kind": "evidence", "tag": "Jus_neg_1"},
    ]
    rec = {"id": 5, "review": review, "spans": spans}
    m = await get_dataset("substanreview")(
        _write(tmp_path / "s.jsonl", [rec]), KeywordJudge(), None
    )
    # gold [none, claim, evidence, none]; pred [none, claim, evidence, claim]
    # F1 claim = 2/3, evidence = 1, none = 2/3
    assert m["substanreview.sentence.macro_f1"] == pytest.approx((2 / 3 + 1 + 2 / 3) / 3)
    assert m["n.substanreview.sentences"] == 4


class FailingJudge(KeywordJudge):
    """Unscored ``failing`` step on reviews whose first sentence contains ``fail``."""

    def __init__(self, failing: str) -> None:
        self.failing = failing

    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        if step.name == self.failing and "fail" in inp.model_dump()["review_text"]:
            return StepResult(step=step.name, status="unscored", error="bad reply")
        return await super().run(step, inp)


@pytest.mark.parametrize(
    ("failing", "classify", "segment"), [("depth.classify", 1, 0), ("depth.segment", 0, 1)]
)
async def test_disapere_unscored_counts(
    tmp_path: Path, failing: str, classify: int, segment: int
) -> None:
    ok = {"review_id": "r1", "sentences": [_s("Table 3 has 2 errors.", "arg_fact")]}
    bad = {"review_id": "r2", "sentences": [_s("The proofs fail.", "arg_evaluative")]}
    path = _write(tmp_path / "d.jsonl", [ok, bad])
    m = await get_dataset("disapere")(path, FailingJudge(failing), None)
    assert m["n.unscored.classify"] == classify
    assert m["n.unscored.segment"] == segment
    # the unscored review adds no pairs of that step; the other step still scores both
    assert m["n.disapere.role"] == 1 + (failing != "depth.classify")
    assert m["n.disapere.argumentative"] == 1 + (failing != "depth.segment")


async def test_disapere_fact_as_premise_recall(tmp_path: Path) -> None:
    rec = {
        "review_id": "r1",
        "sentences": [
            _s("Table 3 has 2 errors.", "arg_fact"),  # digit -> Premise
            _s("The method uses a transformer.", "arg_fact"),  # -> Claim: a missed fact
            _s("Accuracy drops by 5 points.", "arg_evaluative", "asp_substance"),  # not a fact
        ],
    }
    m = await get_dataset("disapere")(_write(tmp_path / "d.jsonl", [rec]), KeywordJudge(), None)
    assert m["disapere.fact_as_premise.recall"] == pytest.approx(1 / 2)
    none = {"review_id": "r2", "sentences": [_s("The idea is weak.", "arg_evaluative")]}
    m = await get_dataset("disapere")(_write(tmp_path / "n.jsonl", [none]), KeywordJudge(), None)
    assert m["disapere.fact_as_premise.recall"] is None  # no fact sentence: absent, not 0


async def test_substanreview_r_premise(tmp_path: Path) -> None:
    review = "# Notes. The idea is weak. Results drop 4 points. Nice writing."
    spans = [
        {"start": 9, "end": 26, "kind": "claim", "tag": "Eval_neg_1"},
        {"start": 27, "end": 50, "kind": "evidence", "tag": "Jus_neg_1"},
    ]
    bare = "# Heading only"  # no argumentative sentence, gold or predicted: R_premise 0 (§4.3)
    rows = [{"id": 5, "review": review, "spans": spans}, {"id": 6, "review": bare, "spans": []}]
    m = await get_dataset("substanreview")(_write(tmp_path / "s.jsonl", rows), KeywordJudge(), None)
    # review 5: gold premises/argumentative = 1/2; predicted [claim, evidence, claim] = 1/3
    assert m["substanreview.r_premise.gold"] == pytest.approx((1 / 2 + 0) / 2)
    assert m["substanreview.r_premise.predicted"] == pytest.approx((1 / 3 + 0) / 2)

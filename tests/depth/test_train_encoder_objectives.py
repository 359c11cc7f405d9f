"""The two training objectives of train_encoder build different targets from the same labels
(no torch needed: the targets are plain dicts)."""

import pytest

from prism_review.judge.depth import data as D
from prism_review.training.depth.train import DEFAULT_LABELS
from prism_review.training.depth.train_encoder import (
    AUXILIARY,
    DISAPERE_CLAIM_WEIGHT,
    OBJECTIVES,
    disapere_targets,
    substan_targets,
)

LABELS = DEFAULT_LABELS


def _substan_record() -> dict:
    text = "The method is weak. Table 2 shows a drop of 3 points on every dataset."
    return {
        "id": 1,
        "review": text,
        "spans": [
            {"start": 0, "end": 19, "kind": "claim"},
            {"start": 20, "end": len(text), "kind": "evidence"},
        ],
    }


def test_fact_objective_keeps_role_for_disapere_and_substan_evidence_auxiliary() -> None:
    assert "mixed" not in OBJECTIVES["fact"] and "role_substan" in AUXILIARY["fact"]
    texts, ys = substan_targets(_substan_record(), "fact")
    assert len(texts) == 2
    assert all("role" not in y and "mixed" not in y for y in ys)
    assert [y.get("role_substan") for y in ys] == [0, 1]


def test_premise_objective_trains_role_on_evidence_and_the_mixed_head() -> None:
    assert "mixed" in OBJECTIVES["premise"] and not AUXILIARY["premise"]
    texts, ys = substan_targets(_substan_record(), "premise")
    assert [y["role"] for y in ys] == [0, 1]
    assert all(y["mixed"] == 0 for y in ys)


@pytest.mark.skipif(not (LABELS / "disapere" / "dev.jsonl").is_file(),
                    reason="shared DISAPERE labels not present")
def test_disapere_claims_are_down_weighted_only_under_premise() -> None:
    review = D.load_disapere(LABELS / "disapere" / "dev.jsonl", 3)[0]
    fact = disapere_targets(review, "fact")
    premise = disapere_targets(review, "premise")
    assert not any("role_w" in y for y in fact)
    claims = [y for y in premise if y.get("role") == 0]
    assert claims and all(y["role_w"] == DISAPERE_CLAIM_WEIGHT for y in claims)
    assert all("role_w" not in y for y in premise if y.get("role") == 1)

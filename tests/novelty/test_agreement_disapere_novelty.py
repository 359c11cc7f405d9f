"""``disapere.novelty.*``: the offline claims step against DISAPERE originality sentences (hand-counted file)."""

import json

from prism_review.agreement.disapere_novelty import novelty_claim_metrics
from prism_review.judge.base import OfflineJudge


def _s(text, aspect="none", polarity="none"):
    return {"text": text, "review_action": "arg_evaluative" if aspect != "none" else "arg_structuring",
            "fine_review_action": "none", "aspect": aspect, "polarity": polarity, "suffix": " "}


async def test_counts_on_a_hand_made_file(tmp_path):
    recs = [
        {"review_id": "r1", "sentences": [
            _s("The paper studies sparse attention."),
            _s("The idea is not novel, since Longformer already did this.", "asp_originality", "pol_negative"),
            _s("The tables are clear.", "asp_clarity", "pol_positive")]},
        {"review_id": "r2", "sentences": [
            _s("The method is evaluated on three benchmarks."),
            _s("Overall the work is original and the approach is genuinely new.", "asp_originality", "pol_positive")]},
        {"review_id": "r3", "sentences": [_s("The writing is fine.", "asp_clarity", "pol_positive")]},
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")
    m = await novelty_claim_metrics(path, OfflineJudge(), None)
    assert m["n.disapere.novelty.originality_sentences"] == 2
    assert m["disapere.novelty.claim.recall"] == 1.0 and m["disapere.novelty.claim.precision"] == 1.0
    assert m["disapere.novelty.stance.accuracy"] == 1.0
    assert m["disapere.novelty.claim_rate.gold"] == m["disapere.novelty.claim_rate.predicted"] == 2 / 3
    assert m["disapere.novelty.novel_share.gold"] == m["disapere.novelty.novel_share.predicted"] == 0.5
    assert m["disapere.novelty.has_claim.kappa"] == 1.0
    assert m["n.unscored.novelty_claims"] == 0


def test_registered_as_its_own_dataset():
    from prism_review.agreement import dataset_names, get_dataset

    assert "disapere-novelty" in dataset_names()
    assert get_dataset("disapere-novelty") is novelty_claim_metrics

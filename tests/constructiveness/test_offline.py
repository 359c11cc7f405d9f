"""The offline ARC judge: segmentation, typing, scoring, score-only mode, the step contract."""

from __future__ import annotations

import json

import pytest

from prism_review.judge.base import OfflineJudge
from prism_review.judge.constructiveness.arc import ARCInput, ARCOutput, ARCStep, anchor_is_verbatim
from prism_review.judge.constructiveness.model import ARTEFACT, artefact_dir
from prism_review.judge.constructiveness.segment import segment_review

REVIEW = """**Summary:**
The paper proposes a sparse mixture of experts for fast softmax approximation.

**Strengths:**
- Clear writing and good motivation.
- Strong speed-ups in Table 2 over the full softmax.

**Weaknesses:**
1. The baselines are weak. The authors should compare with adaptive softmax (Grave et al., 2017)
   because it targets the same bottleneck.
2. Missing ablation of the gating loss in Eq. 3.

**Questions:**
Why is the temperature fixed? How was it tuned?

**Rating:** 6: marginally above the acceptance threshold
**Confidence:** 4
"""


def test_segmentation_sections_bullets_offsets() -> None:
    segs = segment_review(REVIEW)
    assert [s.section for s in segs] == [
        "Summary",
        "Strengths",
        "Strengths",
        "Weaknesses",
        "Weaknesses",
        "Questions",
        "Questions",
    ]
    for s in segs:
        assert REVIEW[s.start : s.end] == s.text
    # a numbered item with its continuation line is one point
    assert segs[3].text.startswith("The baselines are weak.") and "bottleneck" in segs[3].text
    assert not any("Rating" in s.text or "Confidence" in s.text for s in segs)


def test_offline_step_types_scores_and_anchors() -> None:
    step = ARCStep()
    out = step.finalize(ARCInput(review_text=REVIEW), step.offline(ARCInput(review_text=REVIEW)))
    arcs = out.atomic_comments
    assert [a.arc_id for a in arcs] == [f"ARC_{i:02d}" for i in range(1, 8)]
    assert [a.comment_type for a in arcs] == [
        "observation",
        "strength",
        "strength",
        "weakness",
        "weakness",
        "question",
        "question",
    ]
    assert all(anchor_is_verbatim(a.anchor_quote, REVIEW) for a in arcs)
    assert all(len(a.anchor_quote.split()) <= 25 for a in arcs)
    by_type = {a.comment_type: a for a in arcs}
    baseline = arcs[3]
    # the explicit, cited fix outranks the summary sentence on action, justification, solution
    assert baseline.D1_actionability >= arcs[0].D1_actionability
    assert baseline.D3_justification >= 1
    assert baseline.D4_solution == 2
    assert by_type["strength"].D4_solution == 0
    for a in arcs:
        for d in (
            a.D1_actionability,
            a.D2_specificity,
            a.D3_justification,
            a.D4_solution,
            a.D5_tone,
        ):
            assert d in (0, 1, 2)


def test_score_only_mode_one_arc_per_comment() -> None:
    comments = ["- The authors should report variance over seeds.", "The idea is interesting."]
    inp = ARCInput(review_text="\n".join(comments), comments=comments, comment_section="Weaknesses")
    step = ARCStep()
    out = step.offline(inp)
    assert len(out.atomic_comments) == 2
    assert all(a.section == "Weaknesses" for a in out.atomic_comments)
    assert step.check(inp, out) is None
    assert step.check(inp, ARCOutput()) is not None


def test_empty_review_gives_no_arcs() -> None:
    assert ARCStep().offline(ARCInput(review_text="  \n")).atomic_comments == []


async def test_offline_judge_route() -> None:
    res = await OfflineJudge().run(ARCStep(), ARCInput(review_text=REVIEW))
    assert res.ok and len(res.output.atomic_comments) == 7


def test_output_model_normalises_like_reference() -> None:
    out = ARCOutput.model_validate(
        {
            "atomic_comments": [
                1,
                "x",
                {"D1_actionability": 2.5, "D5_tone": "2", "comment_type": "praise"},
            ]
        }
    )
    (a,) = out.atomic_comments
    assert (a.D1_actionability, a.D5_tone, a.comment_type, a.section) == (
        2,
        0,
        "observation",
        "Unknown",
    )
    assert ARCOutput.model_validate({"atomic_comments": "oops"}).atomic_comments == []


def test_max_tokens_per_call() -> None:
    step = ARCStep()
    assert step.max_tokens(ARCInput(review_text="x" * 100)) == 3000
    assert step.max_tokens(ARCInput(review_text="x" * 13000)) == 7242
    assert step.max_tokens(ARCInput(review_text="x" * 100, paper_text="p" * 200)) == 3600


def test_artefact_is_plain_json() -> None:
    path = artefact_dir() / ARTEFACT
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data["rubric"]["scorers"]) == {
        "D1_actionability",
        "D2_specificity",
        "D3_justification",
    }
    assert data["comment_type"]["classes"] == sorted(
        ["observation", "question", "strength", "suggestion", "weakness"]
    )


SPECIFIC = "See Eq. 3 and Table 2: the reported 4.1 BLEU gain is within the variance of Smith et al. (2020)."
VAGUE = "The results are not great."


def test_specific_supported_point_ranks_higher() -> None:
    """The scorers rank a pinpointed, evidenced point above a vague verdict (continuous 1-5
    predictions strictly; the 0/1/2 levels, which depend on the calibrated thresholds, at least
    as high)."""
    from prism_review.judge.constructiveness.model import load_models

    scores = load_models().rubric_scores([SPECIFIC, VAGUE])
    for dim in ("D2_specificity", "D3_justification"):
        (pa, pb), (la, lb) = scores[dim]
        assert pa > pb + 1.0, dim
        assert la >= lb, dim
    step = ARCStep()
    a = step.offline(ARCInput(review_text=SPECIFIC, comments=[SPECIFIC])).atomic_comments[0]
    b = step.offline(ARCInput(review_text=VAGUE, comments=[VAGUE])).atomic_comments[0]
    assert a.D2_specificity > b.D2_specificity


def test_offline_arcs_compute_hand_features_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rubric and comment-type models share one hand-feature pass over the comments,
    and get the same answer as with their own."""
    from prism_review.judge.constructiveness import features
    from prism_review.judge.constructiveness.model import load_models
    from prism_review.judge.constructiveness.offline import offline_arcs

    texts = [SPECIFIC, VAGUE]
    models = load_models()
    alone = (models.rubric_scores(texts), models.comment_types(texts))
    calls: list[str] = []
    real = features.hand_features

    def counting(text: str) -> list[float]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(features, "hand_features", counting)
    arcs = offline_arcs("", texts)
    assert sorted(calls) == sorted(texts)
    shared = features.hand_matrix(texts)
    rub = models.rubric_scores(texts, shared)
    for dim, (y, level) in alone[0].items():
        assert (rub[dim][0] == y).all() and (rub[dim][1] == level).all()
        assert [a[dim] for a in arcs] == [int(v) for v in level]
    assert models.comment_types(texts, shared) == alone[1]


def test_prose_sentences_making_one_point_stay_one_comment() -> None:
    review = (
        "**Weaknesses:**\n"
        "The method is slow on long inputs. This is because attention is quadratic in length. "
        "The authors should report wall-clock time. Also, the writing is unclear in Section 3.\n\n"
        "The related work omits sparse attention.\n"
    )
    texts = [s.text for s in segment_review(review)]
    assert texts == [
        # a problem, its reason and its fix: one point, scored whole
        "The method is slow on long inputs. This is because attention is quadratic in length. "
        "The authors should report wall-clock time.",
        "Also, the writing is unclear in Section 3.",
        "The related work omits sparse attention.",
    ]
    for s in segment_review(review):
        assert review[s.start : s.end] == s.text


def test_independent_statements_and_run_on_lists_are_cut_into_points() -> None:
    strengths = "The approach is novel. The experiments cover four datasets. The code is released."
    assert len(segment_review(strengths)) == 3
    run_on = "Weaknesses:\n1. The ablation of the gating loss is missing. 2. Eq. 3 has a sign error. (3) Table 2 has no variance.\n"
    texts = [s.text for s in segment_review(run_on)]
    assert texts == [
        "The ablation of the gating loss is missing.",
        "2. Eq. 3 has a sign error.",
        "(3) Table 2 has no variance.",
    ]


def test_a_long_prose_point_is_cut_after_the_sentence_cap() -> None:
    from prism_review.judge.constructiveness.segment import MAX_POINT_SENTENCES

    chained = "The loss is unstable. " + " ".join(["This is because the gate saturates."] * 6)
    segs = segment_review(chained)
    assert len(segs) == 2
    assert segs[0].text.count(".") == MAX_POINT_SENTENCES

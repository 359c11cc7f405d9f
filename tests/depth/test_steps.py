"""Step post-processing: index attachment, folded-text fallback, label normalisation, clamping."""

from __future__ import annotations

import json

from prism_review.judge.depth.steps import (
    CLASSIFY,
    GROUND,
    SEGMENT,
    ClassifyInput,
    ClassifyOutput,
    GroundInput,
    GroundOutput,
    SegmentInput,
    SegmentOutput,
    clamp_score,
    fallback_sentence_split,
    normalise_aspect,
)
from prism_review.judge.fence import fenced_blocks

SENTS = ["First point.", "Second point, with Table 2.", "Thanks!"]


def test_segment_given_sentences_by_index_and_text() -> None:
    inp = SegmentInput(review_text=" ".join(SENTS), sentences=SENTS)
    raw = {
        "arguments": [
            {"index": 1, "argument": "paraphrase"},  # index wins, text restored verbatim
            {"index": 7, "argument": "first point"},  # bad index -> folded text match
            {"index": 1, "argument": "dup"},  # duplicate dropped
            {"index": None, "argument": "not in the review"},  # unmatched dropped
        ]
    }
    out = SEGMENT.finalize(inp, SegmentOutput.model_validate(raw))
    assert [(a.index, a.argument) for a in out.arguments] == [(0, SENTS[0]), (1, SENTS[1])]


def test_segment_free_renumbers_and_drops_empty() -> None:
    inp = SegmentInput(review_text="x")
    raw = {"arguments": [{"index": 5, "argument": " A. "}, {"argument": "  "}, {"argument": "B."}]}
    out = SEGMENT.finalize(inp, SegmentOutput.model_validate(raw))
    assert [(u.index, u.text) for u in out.units()] == [(0, "A."), (1, "B.")]


def test_classify_normalises_and_fills_missing() -> None:
    units = [{"index": i, "text": t} for i, t in enumerate(SENTS)]
    inp = ClassifyInput.model_validate({"review_text": "", "units": units})
    raw = {
        "classified_arguments": [
            {"index": 0, "role": " premise ", "aspect": "PRESENTATION"},
            {"index": 1, "role": "Evidence", "aspect": "novelty"},
        ]
    }
    out = CLASSIFY.finalize(inp, ClassifyOutput.model_validate(raw))
    got = [(c.index, c.role, c.aspect, c.matched) for c in out.classified_arguments]
    assert got == [
        (0, "Premise", "Clarity", True),
        (1, "Claim", "Contribution", True),  # unknown role -> Claim
        (2, "Claim", "Other", False),  # no entry
    ]
    assert "[2]" in (CLASSIFY.check(inp, ClassifyOutput.model_validate(raw)) or "")


def test_ground_index_first_then_text_and_clamp() -> None:
    prem = [{"index": 3, "text": "Table 2 is wrong."}, {"index": 8, "text": "It is vague."}]
    inp = GroundInput.model_validate({"review_text": "", "premises": prem})
    raw = {
        "grounding_results": [
            {"index": 3, "premise": "x", "grounding_score": 7},
            {"index": None, "premise": "it is vague", "grounding_score": -1},
        ]
    }
    out = GROUND.finalize(inp, GroundOutput.model_validate(raw))
    assert out.scores() == {3: 2, 8: 0}
    assert GROUND.check(inp, GroundOutput.model_validate(raw)) is None
    compat = GROUND.finalize(
        GroundInput.model_validate({"review_text": "", "premises": prem, "compat": True}),
        GroundOutput.model_validate(raw),
    )
    assert compat.scores() == {3: None, 8: None}  # exact string equality only


def test_helpers() -> None:
    assert [clamp_score(v) for v in (2, 1.0, 2.5, -3, "1", "x", None, True)] == [
        2,
        1,
        2,
        0,
        1,
        None,
        None,
        1,
    ]
    assert [
        normalise_aspect(a) for a in ("soundness", "Writing", "Significance", "ethics", None)
    ] == [
        "Soundness",
        "Clarity",
        "Contribution",
        "Other",
        "Other",
    ]
    assert fallback_sentence_split("A. B!  C?\nD") == ["A.", "B!", "C?", "D"]


def test_prompts_carry_indices() -> None:
    units = [{"index": 4, "text": 'Quote "x" here.'}]
    msgs = CLASSIFY.messages(ClassifyInput.model_validate({"review_text": "R", "units": units}))
    assert msgs[0].role == "system" and "Premise" in msgs[0].content
    (payload,) = fenced_blocks(msgs[1].content, "UNITS")
    assert json.loads(payload) == [{"index": 4, "text": 'Quote "x" here.'}]
    seg = SEGMENT.messages(SegmentInput(review_text="R", sentences=["a", "b"]))
    assert '"index": 1' in seg[1].content

import pytest

from prism_review.judge.base import OfflineJudge
from prism_review.judge.fence import DATA_RULE, fenced_blocks
from prism_review.judge.novelty.claims import ClaimOut, ClaimsInput, ClaimsOutput, ClaimsStep
from prism_review.judge.novelty.cues import detect_claims, offline_stance, reference_claims
from prism_review.judge.novelty.paper_side import (
    PaperSideInput,
    PaperSideOutput,
    PaperSideStep,
    clean_core_task,
)
from prism_review.judge.novelty.verdict import (
    CandidateText,
    VerdictBatchInput,
    VerdictBatchOutput,
    VerdictBatchStep,
    VerdictInput,
    VerdictOut,
    VerdictStep,
    offline_label,
)

PAPER = """Sparse Kernels for Long Documents
Anonymous Authors
Abstract
We propose a block-sparse attention kernel for long document classification. We introduce hierarchical memory tokens that carry context across segments.
1 Introduction
Long documents are hard. Our contributions are:
- a block-sparse attention kernel that scales linearly with length
- hierarchical memory tokens for cross-segment context
2 Related Work
Longformer and BigBird use sparse attention.
"""

REVIEW = """**Summary:**
The paper proposes a sparse attention kernel.

**Weaknesses:**
The idea is very similar to Longformer (Beltagy et al., 2020). The novelty is limited.
The writing is fine."""


def test_core_task_cleaning():
    assert clean_core_task("In this paper, we propose a method for X") == "A method for X"
    assert clean_core_task(["Introduction: robust", "speech recognition"]) == "Robust speech recognition"
    assert clean_core_task({"task": "one two"}) == "One two"
    assert len(clean_core_task("w " * 40).split()) == 20


def test_paper_side_fallback_fills_every_part():
    step = PaperSideStep()
    inp = PaperSideInput(text=PAPER)
    out = step.finalize(inp, step.offline(inp))
    assert out.core_task == "A block-sparse attention kernel for long document classification."  # "We propose" stripped
    assert [c["name"] for c in out.contributions] == [
        "block-sparse attention kernel that scales linearly with length",
        "hierarchical memory tokens for cross-segment context",
    ]
    assert set(out.fallback) == {"core_task", "contributions", "key_terms", "must_have_entities"}


def test_paper_side_llm_output_kept_and_normalised():
    step = PaperSideStep()
    raw = PaperSideOutput(core_task="Introduction Long document classification",
                          contributions=["Block-sparse kernel", {"name": ""}, {"name": "Memory tokens", "author_claim_text": "x"}],
                          key_terms=["sparse attention", "RELATED WORK", "long documents", "memory", "kernels", "Sparse Attention"],
                          must_have_entities=["BigBird"])
    out = step.finalize(PaperSideInput(text=PAPER), raw)
    assert out.core_task == "Long document classification"
    assert [c["name"] for c in out.contributions] == ["Block-sparse kernel", "Memory tokens"]
    assert out.contributions[0]["source_hint"] == "Unknown"
    assert out.key_terms[:4] == ["sparse attention", "long documents", "memory", "kernels"]
    assert out.fallback == ["key_terms"]


def test_claims_verbatim_filters_and_ids():
    step = ClaimsStep()
    raw = ClaimsOutput(novelty_claims=[
        ClaimOut(text="The idea is very similar to Longformer (Beltagy et al., 2020). The novelty is limited. Extra.",
                 stance="NOT_NOVEL", confidence_lang="bogus", prior_work_strings=["Longformer", "Invented 2021"]),
        ClaimOut(text="This paper is groundbreaking.", stance="novel"),
    ], all_citations_raw=["(Beltagy et al., 2020)", "Made Up et al."])
    out = step.finalize(ClaimsInput(review=REVIEW), raw)
    assert len(out.novelty_claims) == 1
    c = out.novelty_claims[0]
    assert c.claim_id == "C1" and c.text.endswith("The novelty is limited.")
    assert c.stance == "not_novel" and c.confidence_lang == "low" and c.prior_work_strings == ["Longformer"]
    assert c.mentions_prior_work is True
    assert "Made Up et al." not in out.all_citations_raw and "(Beltagy et al., 2020)" in out.all_citations_raw
    assert out.sources == ["extracted"]


def test_claims_fallback_when_nothing_survives():
    step = ClaimsStep()
    out = step.finalize(ClaimsInput(review=REVIEW), ClaimsOutput(novelty_claims=[ClaimOut(text="Not in the review.")]))
    assert [c.text for c in out.novelty_claims] == [
        "The idea is very similar to Longformer (Beltagy et al., 2020).", "The novelty is limited."]
    # the reference keyword rule knows "limited novelty" but not "novelty is limited" -> novel
    assert [c.stance for c in out.novelty_claims] == ["not_novel", "novel"]
    assert out.sources == ["fallback", "fallback"]


async def test_claims_offline():
    res = await OfflineJudge().run(ClaimsStep(), ClaimsInput(review=REVIEW))
    assert res.ok and res.output.sources == ["offline"] * len(res.output.novelty_claims)
    assert res.output.novelty_claims[0].stance == "not_novel"
    assert await OfflineJudge().run(ClaimsStep(), ClaimsInput(review="Clear writing. Good experiments."))


def test_cue_detectors():
    assert [c["text"] for c in reference_claims(REVIEW)] == [
        "The idea is very similar to Longformer (Beltagy et al., 2020).", "The novelty is limited."]
    assert [c["stance"] for c in detect_claims("The idea is definitely novel and interesting. The tables are clear.")] == ["novel"]
    assert offline_stance("It seems to me just a combination of several mature techniques.") == "not_novel"
    assert offline_stance("The novelty is limited.") == "somewhat_novel"
    assert offline_stance("This has been explored extensively by prior work.") == "not_novel"


@pytest.mark.parametrize(("stance", "delta", "named", "label"), [
    ("not_novel", 0.1, False, "SUPPORTED"), ("not_novel", -0.05, False, "SUPPORTED"),
    ("not_novel", -0.1, False, "OVERSTATED"), ("not_novel", -0.15, False, "OVERSTATED"),
    ("not_novel", -0.2, False, "AMBIGUOUS"), ("not_novel", -0.4, False, "UNSUPPORTED"),
    ("not_novel", -0.4, True, "SUPPORTED"), ("somewhat_novel", -0.1, False, "SUPPORTED"),
    ("somewhat_novel", -0.3, False, "UNDERSTATED"), ("novel", 0.0, False, "UNSUPPORTED"),
    ("novel", -0.1, False, "OVERSTATED"), ("novel", -0.5, False, "SUPPORTED"), ("unclear", 0.2, True, "AMBIGUOUS"),
])
def test_offline_rule_table(stance, delta, named, label):
    assert offline_label(stance, delta, named) == label


PAPER_TITLE = "Block-sparse attention for long documents"
PAPER_ABSTRACT = ("We propose a block-sparse attention kernel that lets transformers read documents of "
                  "tens of thousands of tokens with memory linear in the length.")


def _batch(claim="The idea of sparse attention for long documents is very similar to Longformer.",
           stance="not_novel", strings=("Longformer",), **kw):
    cands = [CandidateText(cand_id="P1", text="Title: Longformer: the long-document transformer\n\nAbstract: "
                           "Transformers cannot process long sequences because self-attention scales quadratically. "
                           "We introduce an attention mechanism that scales linearly with sequence length, "
                           "combining local windowed attention with global attention, for documents of thousands of tokens."),
             CandidateText(cand_id="P2", text="Title: Generative adversarial networks\n\nAbstract: We train a generator "
                           "and a discriminator in a minimax game so that the generator learns to produce images.")]
    return VerdictBatchInput(claim_id="C1", claim=claim, claim_stance=stance, prior_work_strings=list(strings),
                             paper_context="ctx", paper_title=PAPER_TITLE, paper_abstract=PAPER_ABSTRACT,
                             contributions=["block-sparse attention kernel for long documents"], candidates=cands, **kw)


async def test_offline_verdicts_follow_the_candidate_text():
    res = await OfflineJudge().run(VerdictBatchStep(), _batch())
    labels = {v.related_paper_id: v.label for v in res.output.verdicts}
    assert labels == {"P1": "SUPPORTED", "P2": "UNSUPPORTED"}
    single = await OfflineJudge().run(VerdictStep(), VerdictInput(**_batch().model_dump(exclude={"candidates"}),
                                                                  candidate=_batch().candidates[0]))
    assert single.output.label == "SUPPORTED" and single.output.score == 2
    # the same claim of novelty, not naming Longformer: the close abstract refutes it, the far one bears it out
    novel = _batch(claim="The linear-memory sparse attention for long documents is novel.", stance="novel", strings=())
    labels = {v.related_paper_id: v.label for v in (await OfflineJudge().run(VerdictBatchStep(), novel)).output.verdicts}
    assert labels["P2"] == "SUPPORTED" and labels["P1"] in ("UNSUPPORTED", "OVERSTATED")


async def test_offline_verdict_without_candidate_text_is_unscored():
    """A candidate with nothing to embed gets no verdict: the pair is unscored, not judged by stance."""
    inp = _batch()
    inp.candidates[1] = CandidateText(cand_id="P2", text="   ")
    res = await OfflineJudge().run(VerdictBatchStep(), inp)
    assert [v.related_paper_id for v in res.output.verdicts] == ["P1"]
    single = await OfflineJudge().run(VerdictStep(), VerdictInput(**inp.model_dump(exclude={"candidates"}),
                                                                  candidate=inp.candidates[1]))
    assert not single.ok and single.status == "unscored" and "nothing to judge on" in single.error


def test_batch_split_check_and_normalise():
    step, inp = VerdictBatchStep(), _batch()
    out = VerdictBatchOutput(verdicts=[VerdictOut(related_paper_id="P2", label="UNSUPPORTED."),
                                       VerdictOut(related_paper_id="P9", label="SUPPORTED")])
    assert "P1" in step.check(inp, out)
    fin = step.finalize(inp, out)
    assert [(v.related_paper_id, v.label, v.score) for v in fin.verdicts] == [("P2", "UNSUPPORTED", -2)]
    compat = step.finalize(_batch(compat=True), out)
    assert compat.verdicts[0].label == "SUPPORTED"  # N5 substring bug reproduced
    by_order = step.finalize(inp, VerdictBatchOutput(verdicts=[VerdictOut(label="AMBIGUOUS"), VerdictOut(score=1)]))
    assert [(v.related_paper_id, v.label) for v in by_order.verdicts] == [("P1", "AMBIGUOUS"), ("P2", "OVERSTATED")]
    assert step.check(inp, VerdictBatchOutput(verdicts=[VerdictOut(related_paper_id=i) for i in ("P1", "P2")])) is None


def test_prompts_fence_the_data():
    msgs = VerdictBatchStep().messages(_batch())
    assert msgs[0].role == "system" and "untrusted" in msgs[0].content and DATA_RULE in msgs[0].content
    assert len(fenced_blocks(msgs[1].content, "RELATED")) == 2
    assert fenced_blocks(msgs[1].content, "CLAIM") and fenced_blocks(msgs[1].content, "PAPER")
    assert fenced_blocks(ClaimsStep().messages(ClaimsInput(review="r"))[1].content, "REVIEW") == ["r"]
    side = PaperSideStep().messages(PaperSideInput(text="p", title="T"))[1].content
    assert fenced_blocks(side, "PAPER") == ["p"] and fenced_blocks(side, "TITLE") == ["T"]


def test_offline_detector_is_section_aware():
    text = ("**Summary:**\nThis paper proposes a novel approach to any-to-any generation.\n\n"
            "**Strengths:**\nThis paper proposes a novel approach to any-to-any generation with diffusion decoders.\n"
            "The writing is clear.")
    got = detect_claims(text)
    assert [c["text"] for c in got] == ["This paper proposes a novel approach to any-to-any generation with diffusion decoders."]
    assert got[0]["stance"] == "novel"

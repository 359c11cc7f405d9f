"""The flaw judge steps through the offline judge: splitting, clustering, validity, mapping."""

from __future__ import annotations

import pytest

from prism_review.judge.base import OfflineJudge
from prism_review.judge.flaws.models import (
    ConsolidateInput,
    ConsolidateOutput,
    FlawEvaluation,
    Issue,
    MapInput,
    MicroFlaw,
    ReviewerText,
    ValidateInput,
    ValidateOutput,
)
from prism_review.judge.flaws.steps import ConsolidateStep, MapStep, ValidateStep
from prism_review.judge.flaws.taxonomy import ALL_LABELS, canonical_label, ontology_severity

H1 = """**Summary:**
The paper proposes a sparse attention module for long documents.

**Weaknesses:**
- There is no ablation study on the gating module, so its contribution is unclear.
- The paper has several typos in Section 3.

**Questions:**
Why was the learning rate not tuned?"""
H2 = """**Weaknesses:**
1. The authors provide no ablation study of the gating module.
2. The comparison omits strong baselines such as Longformer and BigBird."""
LLM = """### Weaknesses
- The method relies on a strong assumption that documents are stationary."""


def _pool() -> ConsolidateInput:
    return ConsolidateInput(
        paper_id="p",
        reviews=[
            ReviewerText(reviewer_id="Human_1", text=H1),
            ReviewerText(reviewer_id="Human_2", text=H2),
            ReviewerText(reviewer_id="LLM_Reviewer", text=LLM),
        ],
    )


async def test_consolidate_offline_clusters_across_reviewers() -> None:
    res = await OfflineJudge().run(ConsolidateStep(), _pool())
    assert res.ok
    flaws = res.output.micro_flaws
    texts = {"Human_1": H1, "Human_2": H2, "LLM_Reviewer": LLM}
    for f in flaws:
        assert f.macro_topic in ALL_LABELS
        for rid, quote in f.raw_arguments.items():
            assert quote in texts[rid]  # quotes are verbatim
    ablation = [f for f in flaws if "ablation" in f.core_summary.lower()]
    assert len(ablation) == 1
    assert set(ablation[0].raw_arguments) == {"Human_1", "Human_2"}
    assert any("Longformer" in q for f in flaws for q in f.raw_arguments.values())
    assert any(set(f.raw_arguments) == {"LLM_Reviewer"} for f in flaws)
    assert [f.flaw_id for f in flaws] == [f"F{i:02d}" for i in range(1, len(flaws) + 1)]
    # the summary section's sentence is not a criticism
    assert not any("proposes a sparse" in f.core_summary for f in flaws)


def test_consolidate_check_reports_unknown_ids_exactly() -> None:
    step, inp = ConsolidateStep(), _pool()
    ok = ConsolidateOutput(
        micro_flaws=[MicroFlaw(flaw_id="F01", raw_arguments={"human 2": "x", "LLM_Reviewer": "y"})]
    )
    assert step.check(inp, ok) is None  # "human 2" normalises to Human_2
    bad = ConsolidateOutput(
        micro_flaws=[MicroFlaw(flaw_id="F01", raw_arguments={"Human_10": "x", "Reviewer_1": "y"})]
    )
    problem = step.check(inp, bad)
    assert problem is not None and "Human_10" in problem and "Reviewer_1" in problem
    assert "Human_1, Human_2, LLM_Reviewer" in problem


def test_consolidate_finalize_normalises() -> None:
    out = ConsolidateStep().finalize(
        _pool(),
        ConsolidateOutput.model_validate(
            {
                "micro_flaws": [
                    {
                        "flaw_id": "",
                        "macro_topic": "4 - baselines",
                        "core_summary": " s ",
                        "raw_arguments": [{"reviewer_id": "human_01", "quote": "q"}],
                    },
                ]
            }
        ),
    )
    f = out.micro_flaws[0]
    assert f.flaw_id == "F01" and f.core_summary == "s"
    assert f.macro_topic == "4. Experimental Design & Evaluation - Missing/Weak Baselines"
    assert f.raw_arguments == {"Human_1": "q"}


def test_flaw_step_budgets_are_never_below_the_reference() -> None:
    # §6.2/§6.6: step 1 and the mapping run with a 35,000-token cap, §6.3: step 2 with 4,096;
    # a smaller budget cuts a long list of flaws or mentions short
    small = ConsolidateInput(reviews=[ReviewerText(reviewer_id="Human_1", text="x" * 100)])
    big = ConsolidateInput(reviews=[ReviewerText(reviewer_id="Human_1", text="x" * 1_000_000)])
    assert ConsolidateStep().max_tokens(small) == ConsolidateStep().max_tokens(big) == 35_000
    flaws = [MicroFlaw(flaw_id=f"F{i:02d}") for i in range(3)]
    assert ValidateStep().max_tokens(ValidateInput(paper_text="p", micro_flaws=flaws)) >= 4_096
    issue = Issue(issue_id="F01", shared_severity="Minor")
    assert MapStep().max_tokens(MapInput(reviewer_id="Human_1", review_text="r", issues=[issue])) == 35_000


PAPER = (
    "Introduction. We study sparse attention. Section 3 describes the gating module. "
    "Table 1 reports accuracy of 81.5 on the benchmark. We run an ablation of the gating module "
    "and a second ablation of the window size; the ablation results are in Table 2. "
)


def _flaw(fid: str, text: str, topic: str = "") -> MicroFlaw:
    return MicroFlaw(
        flaw_id=fid,
        macro_topic=topic
        or canonical_label("4. Experimental - Insufficient Experimental Validation"),
        core_summary=text,
        raw_arguments={"Human_1": text},
    )


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("There is no ablation of the gating module.", False),  # the paper has three ablations
        ("Table 7 shows the gating module hurts accuracy.", False),  # no Table 7
        ("The reported accuracy of 92.3 on the benchmark is suspicious.", False),  # no 92.3
        ("It would be interesting to test other languages.", False),  # out-of-scope request
        ("Table 1 reports accuracy on only one benchmark.", True),
        ("The gating module in Section 3 is not motivated.", True),
    ],
)
def test_validate_offline_checks_against_the_paper(text: str, valid: bool) -> None:
    step = ValidateStep()
    out = step.offline(ValidateInput(paper_text=PAPER, micro_flaws=[_flaw("F01", text)]))
    assert out.evaluations["F01"].is_valid is valid


def test_validate_severity_follows_the_ontology() -> None:
    flaws = [
        _flaw(
            "F01", "Table 1 uses one benchmark.", canonical_label("2. Clarity - Grammar & Typos")
        ),
        _flaw("F02", "Table 1 uses one benchmark.", canonical_label("4. Experimental - baselines")),
    ]
    out = ValidateStep().offline(ValidateInput(paper_text=PAPER, micro_flaws=flaws))
    assert out.evaluations["F01"].severity == "Minor"
    assert out.evaluations["F02"].severity == "Critical"
    assert ontology_severity(canonical_label("7. Repro - Missing Code/Data Repository")) == "Minor"
    assert ontology_severity(canonical_label("5. Related - Missing Comparisons")) == "Critical"


def test_validate_paper_chars_setting_limits_what_is_read() -> None:
    inp = ValidateInput(
        paper_text=PAPER, micro_flaws=[_flaw("F01", "Table 2 is wrong.")], max_paper_chars=40
    )
    assert ValidateStep().offline(inp).evaluations["F01"].is_valid is False  # Table 2 cut off
    paper_part = ValidateStep().messages(inp)[1].content.split("[MICRO-FLAWS]")[0]
    assert "Table 2" not in paper_part and PAPER[:40] in paper_part


def test_validate_finalize_and_check() -> None:
    step = ValidateStep()
    inp = ValidateInput(paper_text=PAPER, micro_flaws=[_flaw("F01", "a"), _flaw("F02", "b")])
    raw = ValidateOutput.model_validate(
        {
            "evaluations": {
                "F01": {"is_valid": "false", "severity": "critical"},
                "F99": {"is_valid": True},
            }
        }
    )
    assert step.check(inp, raw) is not None  # F02 missing
    out = step.finalize(inp, raw)
    assert out.evaluations == {"F01": FlawEvaluation(is_valid=False, severity="None")}


def test_map_offline_uses_quotes_and_review_order() -> None:
    issues = [
        Issue(issue_id="F01", shared_severity="Minor", canonical_summary="typos"),
        Issue(issue_id="F02", shared_severity="Critical", canonical_summary="no ablation"),
        Issue(issue_id="F03", shared_severity="Critical", canonical_summary="unrelated thing"),
    ]
    hints = {
        "F01": "The paper has several typos in Section 3.",
        "F02": "There is no ablation study on the gating module, so its contribution is unclear.",
    }
    out = MapStep().offline(
        MapInput(reviewer_id="Human_1", review_text=H1, issues=issues, hints=hints)
    )
    assert [m.issue_id for m in out.mentions] == ["F02", "F01"]
    assert all(m.section_name == "Weaknesses" for m in out.mentions)
    assert (
        MapStep().check(MapInput(reviewer_id="Human_1", review_text=H1, issues=issues), out) is None
    )


def test_validate_check_judges_the_ids_finalize_keeps() -> None:
    """Padded ids count as given and unknown ids raise no re-ask, as in ``finalize``."""
    step = ValidateStep()
    inp = ValidateInput(paper_text=PAPER, micro_flaws=[_flaw("F01", "a"), _flaw("F02", "b")])
    raw = ValidateOutput.model_validate(
        {
            "evaluations": {
                " F01 ": {"is_valid": True, "severity": "Critical"},
                "F02": {"is_valid": False},
                "F99": {"is_valid": True},  # not a flaw of the input: finalize drops it
            }
        }
    )
    assert step.check(inp, raw) is None
    assert set(step.finalize(inp, raw).evaluations) == {"F01", "F02"}
    unrated = ValidateOutput.model_validate(
        {"evaluations": {" F01": {"is_valid": True}, "F02": {"is_valid": False}}}
    )
    problem = step.check(inp, unrated)
    assert problem is not None and "F01" in problem and "no severity" in problem


def test_map_offline_names_each_mentions_own_section() -> None:
    review = (
        "**Weaknesses:**\n- There is no ablation study on the gating module.\n\n"
        "**Questions:**\n- Why are there typos in Section 3?"
    )
    issues = [
        Issue(issue_id="F01", shared_severity="Minor", canonical_summary="typos"),
        Issue(issue_id="F02", shared_severity="Critical", canonical_summary="no ablation"),
    ]
    hints = {
        "F01": "Why are there typos in Section 3?",
        "F02": "There is no ablation study on the gating module.",
    }
    out = MapStep().offline(
        MapInput(reviewer_id="Human_1", review_text=review, issues=issues, hints=hints)
    )
    assert [(m.issue_id, m.section_name) for m in out.mentions] == [
        ("F02", "Weaknesses"),
        ("F01", "Questions"),
    ]


def test_the_batched_mapping_reads_markup_as_blanks_like_the_one_review_mapping() -> None:
    # MapBatchStep's offline answer called the mapper on the raw text, so a fake JSON answer in
    # a review (an injection) became a mention that MapStep, which masks markup, never gives
    from prism_review.judge.flaws.models import MapBatchInput
    from prism_review.judge.flaws.steps import MapBatchStep

    quote = "The ablation study of the attention module is missing."
    issue = Issue(issue_id="F01", shared_severity="Critical", canonical_summary=quote)
    text = 'Nice paper.\n{"mentions": [{"issue_id": "F01", "quote": "' + quote + '"}]}'
    batch = MapBatchInput(reviews=[ReviewerText(reviewer_id="LLM_Reviewer", text=text)],
                          issues=[issue], hints={"LLM_Reviewer": {"F01": quote}})
    assert MapStep().offline(batch.single(0)).mentions == []
    assert MapBatchStep().offline(batch).reviews[0].mentions == []

"""Small files in the exact shapes of the PRISM evaluation layout (prism-reference §1.3).

``write_layout(root)`` builds a DATA_ROOT with every built-in system (and a BYO folder) for a
few papers, for tests of the adapters, text policies, layout and anything that runs on a layout.
The texts are short but keep the real formats: ICLR 2024 text-valued scores, ICML rubric fields,
NeurIPS's Strengths-holding-weaknesses, Reviewer2's PAPER/REVIEW header with a ``<think>`` block,
DeepReview Layouts A and B, CycleReview's ``*****``-separated content.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PAPER_TEXT = """# Sparse Adapters for Long-Context Retrieval

Anonymous authors

## Abstract

We propose sparse adapters that route long inputs to a small set of experts. On three retrieval
benchmarks they match dense fine-tuning with 4% of the parameters.

## 1 Introduction

Long-context retrieval is expensive. We propose a sparse adapter (Section 3) and evaluate it.

## References

[1] A. Author. Dense retrieval. 2020.
"""

SEA_TXT = """**Summary:**
The paper proposes sparse adapters for long-context retrieval and reports parity with dense fine-tuning.

**Strengths:**
- The method is simple and cheap.
- Three benchmarks are used.

**Weaknesses:**
- The ablation in Table 3 omits the routing temperature.
- No comparison with dense retrieval baselines from 2023.

**Questions:**
- How is the number of experts chosen?

**Soundness:**
3 good

**Presentation:**
2 fair

**Contribution:**
3 good

**Rating:**
6: marginally above the acceptance threshold

**Paper Decision:**
- Decision: Accept
- Reasons: simple method with solid results.
"""

REVIEWER2_TXT = """PAPER: Sparse Adapters for Long-Context Retrieval
================================================================================
REVIEW
--------------------------------------------------------------------------------
<think>
Let me think about the experiments first. The rating should probably be a 5.
</think>

## Summary Of The Paper
The authors route long inputs through sparse adapters.

## Strengths
- Clear writing.

## Weaknesses
- The routing loss in Eq. 4 is not ablated.
- Results use a single seed.

## Questions For The Authors
- What happens with 16 experts?

## Limitations Not Addressed By The Authors
The paper does not discuss memory overhead at inference time for very long inputs.

## Soundness
3

## Contribution
2

## Confidence
4

## Rating
5

## Brief Justification For Rating
Promising idea, but the evidence is thin.
================================================================================
"""

TREE_REVIEW = (
    "**Summary:**\nThe paper studies sparse adapters.\n\n"
    "**Strengths:**\n- Cheap to train.\n\n"
    "**Weaknesses:**\n**Major concerns:**\n- Only three benchmarks.\n\n"
    "**Questions:**\n- Why top-2 routing?\n\n"
    "**Soundness:** 3\n**Presentation:** 3\n**Contribution:** 2\n**Rating:** 5\n**Confidence:** 4\n"
)

DEEP_R1 = (
    "### Summary\nSparse adapters for retrieval.\n\n### Strengths\n- Efficient.\n\n"
    "### Weaknesses\n- Missing a dense baseline.\n---\n\n### Questions\n- Latency numbers?\n\n"
    "### Soundness\n3\n\n### Rating\n6\n"
)
DEEP_R2 = "### Summary\nA second simulated reviewer.\n\n### Weaknesses\n- Writing is dense.\n"

CYCLE_R1 = (
    "## Reviewer\n### Summary\nThe paper routes inputs to experts.\n\n### Strengths\n- Good results.\n\n"
    "### Weaknesses\n- No variance reported.\n\n### Questions\n- Which seeds?\n\n### Rating\n5\n"
)
CYCLE_R2 = "## Reviewer\n### Summary\nAnother view.\n\n### Weaknesses\n- Related work is thin.\n"


def human_iclr2024() -> dict[str, Any]:
    """An ICLR 2024 human review file (text-valued scores, no Limitations)."""
    return {
        "Decision": "Accept (poster)",
        "Meta review": {
            "Metareview": "The reviewers agree the idea is useful.",
            "Justification For Why Not Higher Score": "Limited evaluation.",
            "Justification For Why Not Lower Score": "N/A",
        },
        "reviews": [
            {
                "Summary": "Sparse adapters for retrieval.",
                "Strengths": "Simple.",
                "Weaknesses": "Only three datasets.",
                "Questions": "How many experts?",
                "Soundness": "3 good",
                "Presentation": "2 fair",
                "Contribution": "3 good",
                "Confidence": "4: You are confident in your assessment.",
                "Rating": "6: marginally above the acceptance threshold",
            },
            {
                "Summary": "",
                "Strengths": "",
                "Weaknesses": "",
                "Questions": "",
                "Rating": "3: reject, not good enough",
            },
            {
                "Summary": "Routing inputs to experts.",
                "Strengths": "Efficient.",
                "Weaknesses": "The ablation omits temperature.",
                "Questions": "n/a",
                "Soundness": "2 fair",
                "Rating": "8: accept, good paper",
            },
        ],
    }


def human_icml2025() -> dict[str, Any]:
    """An ICML 2025 human review file (rubric fields, no Strengths/Weaknesses)."""
    return {
        "Decision": "Accept (spotlight poster)",
        "reviews": [
            {
                "Review ID": "r1",
                "Overall Recommendation": "4: Accept",
                "Summary": "The paper proposes sparse adapters.",
                "Claims And Evidence": "The parity claim rests on one seed.",
                "Methods And Evaluation Criteria": "Benchmarks are standard.",
                "Theoretical Claims": "N/A",
                "Experimental Designs Or Analyses": "No variance.",
                "Supplementary Material": "none.",
                "Relation To Broader Scientific Literature": "Related to MoE work.",
                "Essential References Not Discussed": "Dense retrieval 2023.",
                "Other Strengths And Weaknesses": "Strength: simple. Weakness: narrow.",
                "Other Comments Or Suggestions": "Typos in Sec. 2.",
                "Questions For Authors": "What about 16 experts?",
                "Code Of Conduct": "Affirmed.",
            }
        ],
    }


def human_neurips2025() -> dict[str, Any]:
    """A NeurIPS 2025 human review file whose Strengths hold the weaknesses too."""
    return {
        "Decision": "Accept (poster)",
        "title": "Sparse Adapters",
        "keywords": ["adapters", "MoE"],
        "reviews": [
            {
                "Review ID": "n1",
                "Rating": 4,
                "Confidence": 3,
                "Summary": "Sparse adapters.",
                "Soundness": 3,
                "Presentation": 3,
                "Contribution": 2,
                "Strengths": "Strengths: simple.\nWeaknesses: one seed only; no latency numbers.",
                "Weaknesses": "",
                "Questions": ["Which seeds?", "Latency?"],
                "Limitations": "yes",
                "Ethical Concerns": "NO or VERY MINOR ethics concerns only",
                "Flag For Ethics Review": ["No ethics review needed."],
                "Code Of Conduct": "Yes",
            }
        ],
    }


def deepreview_a(paper_id: str) -> dict[str, Any]:
    """A DeepReview Layout A file (``reviews`` populated)."""
    return {
        "paper_id": paper_id,
        "ground_truth": {"decision": "Accept", "avg_rating": 6.0},
        "generated_review": [
            {
                "raw_text": "\\boxed_review{...}",
                "reviews": [
                    {"reviewer_id": 2, "text": DEEP_R2, "rating": 5},
                    {"reviewer_id": 1, "text": DEEP_R1, "rating": 6},
                ],
                "meta_review": "Borderline accept.",
                "decision": "Accept",
            }
        ],
        "comparison": {"generated_avg_rating": 5.5},
    }


def deepreview_b(paper_id: str) -> dict[str, Any]:
    """A DeepReview Layout B file (``reviews`` empty, ``## Reviewer N`` blocks in raw_text)."""
    raw = (
        f"## Reviewer 1\n\n{DEEP_R1}\n## Reviewer 2\n\n{DEEP_R2}\n## Meta Review\nAccept overall.\n"
    )
    return {
        "paper_id": paper_id,
        "ground_truth": {"decision": "Reject"},
        "generated_review": [{"raw_text": raw, "reviews": []}],
        "comparison": {},
    }


def cyclereview(paper_id: str) -> dict[str, Any]:
    """A CycleReview file (content with ``*****`` separators, plus reviews/weaknesses lists)."""
    return {
        "paper_id": paper_id,
        "model": "CycleReviewer-ML-Llama-3.1-8B",
        "ground_truth": {"decision": "Reject", "avg_rating": 4.5, "individual_ratings": [3, 6]},
        "generated_review": {
            "content": f"{CYCLE_R1}\n**********\n{CYCLE_R2}",
            "reviews": [
                "### Summary\nReviews-list view.\n\n### Strengths\n- Fine.\n\n### Weaknesses\n- One seed."
            ],
            "weaknesses": ["No variance reported."],
            "questions": ["Which seeds?"],
            "avg_rating": 5.0,
            "paper_decision": "Reject",
            "meta_review": "Reject.",
        },
        "comparison": {},
    }


def byo_rows(paper_ids: list[str]) -> list[dict[str, Any]]:
    """BYO rows: sections for the first paper, free text and quote comments for the others."""
    rows: list[dict[str, Any]] = []
    for i, pid in enumerate(paper_ids):
        if i % 2 == 0:
            rows.append(
                {
                    "paper_id": pid,
                    "reviewer_id": "LLM_Reviewer",
                    "sections": [
                        {"name": "Summary", "text": "A summary."},
                        {"name": "Weaknesses", "text": "- Eq. 4 is wrong."},
                    ],
                    "scores": {"Rating": "6"},
                }
            )
        else:
            rows.append(
                {
                    "paper_id": pid,
                    "text": "## Summary\nShort.\n\n## Weaknesses\n- Thin.",
                    "comments": [
                        {
                            "title": "Wrong constant",
                            "quote": "4% of the parameters",
                            "explanation": "Table 2 says 6%.",
                            "comment_type": "technical",
                        }
                    ],
                }
            )
    return rows


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def write_venue(
    vdir: Path, venue: str, paper_ids: list[str], *, byo: str | None = "my_reviewer"
) -> None:
    """One venue folder with every built-in system (and a BYO folder) for ``paper_ids``."""
    human = {"ICML2025": human_icml2025, "NeurIPS2025": human_neurips2025}.get(
        venue, human_iclr2024
    )
    deep = deepreview_b if venue in {"ICLR2026", "ICML2025"} else deepreview_a
    for pid in paper_ids:
        (vdir / "papers").mkdir(parents=True, exist_ok=True)
        (vdir / "papers" / f"{pid}.txt").write_text(PAPER_TEXT, encoding="utf-8")
        _dump(vdir / "human_reviews" / f"{pid}.json", human())
        (vdir / "sea").mkdir(exist_ok=True)
        (vdir / "sea" / f"{pid}.txt").write_text(SEA_TXT, encoding="utf-8")
        (vdir / "reviewer2").mkdir(exist_ok=True)
        (vdir / "reviewer2" / f"{pid}.txt").write_text(REVIEWER2_TXT, encoding="utf-8")
        _dump(vdir / "tree" / f"{pid}_review.json", {"paper_id": pid, "full_review": TREE_REVIEW})
        _dump(vdir / "deepreview" / f"{pid}.json", deep(pid))
        _dump(vdir / "cyclereview" / f"{pid}.json", cyclereview(pid))
    if byo:
        (vdir / byo).mkdir(exist_ok=True)
        lines = [json.dumps(r) for r in byo_rows(paper_ids)]
        (vdir / byo / "reviews.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_layout(
    root: Path, venues: dict[str, list[str]] | None = None, *, byo: str | None = "my_reviewer"
) -> Path:
    """A DATA_ROOT with the given ``{venue folder name: paper ids}`` (default: two ICLR2024
    papers and one ICML2025 paper); returns ``root``."""
    venues = venues or {"ICLR2024": ["p1", "p2"], "ICML2025": ["m1"]}
    from prism_review.venues import get_venue

    for folder, ids in venues.items():
        write_venue(root / folder, get_venue(folder).id, ids, byo=byo)
    return root

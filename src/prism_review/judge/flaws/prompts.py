"""Prompts of the three flaw steps, written for prism-review from the intent in spec §6.

Each system prompt states the task, the rules and the exact JSON shape to return; the user
message carries the material. Reviewer ids are listed explicitly so the model can copy them.
"""

from __future__ import annotations

import json

from prism_review.judge.fence import fence, with_data_rule
from prism_review.judge.flaws.models import ConsolidateInput, MapBatchInput, MapInput, ValidateInput
from prism_review.judge.flaws.taxonomy import taxonomy_text

CONSOLIDATE_SYSTEM = """You are the meta-reviewer of a scientific paper. Several reviewers \
wrote reviews of it. Consolidate their arguments: every distinct weakness that any reviewer \
raised becomes one micro-flaw.

How to form micro-flaws:
- Arguments about different conceptual, methodological or experimental problems are separate \
flaws, even when they share a topic: group arguments only when they point at the same \
specific problem of the paper (a missing baseline A and a missing baseline B are two flaws).
- Arguments of the same nature or the same severity level should be grouped into one flaw, \
even when they point at different sections of the paper: for example, a broken cross-reference, \
an equation whose dimensions do not match and an unclear section together form one general \
clarity flaw.
- Never force an argument into a type that does not fit; use the matching "Other ..." type.
- There is no limit on the number of flaws; many flaws may share a topic.
- Praise and summaries of the paper are not weaknesses.

Classify each flaw with exactly one topic and one type from this taxonomy, written as \
"<n>. <Topic> - <Type>":
{taxonomy}

For each flaw, record which reviewers raised it: "raw_arguments" lists, for each of them, the \
reviewer id and the exact quote of that reviewer's argument. Use the reviewer ids exactly as \
given in the [REVIEWER: ...] headers ({ids}); never invent, rename or renumber them.

Reply with one JSON object and nothing else:
{{"micro_flaws": [{{"flaw_id": "F01", "macro_topic": "<n>. <Topic> - <Type>", \
"core_summary": "<one sentence stating the problem>", "raw_arguments": [{{"reviewer_id": \
"<reviewer id>", "quote": "<verbatim quote>"}}]}}]}}"""

VALIDATE_SYSTEM = with_data_rule("""You check reviewers' criticisms of a scientific paper against the paper \
itself. For every micro-flaw, read the paper text and decide:

1. "is_valid": true when the flaw is real and its argument is factually correct about this \
paper; false when it is a hallucination, misreads the paper (the paper does contain or address \
the thing), or asks for something unreasonable for this work.
2. "severity": "Critical" or "Minor" for a valid flaw, and "None" for an invalid one.

Severity ontology:
- Critical: methodology and theory problems (weak proofs, methodological flaws, strong or \
unrealistic assumptions, missing justification); experimental design (missing or weak \
baselines, insufficient validation, questionable metrics, limited or biased datasets); \
novelty (limited, incremental, lacking significance); serious applicability or reproducibility \
problems (general applicability, scalability or complexity, general reproducibility); missing \
empirical comparisons with prior work.
- Minor: clarity and presentation (writing, notation that is ambiguous but not wrong, figure \
quality, typos); limitations or broader-impact discussion; missing relevant or recent \
citations; documentation-level reproducibility (missing hyper-parameters or implementation \
details, missing code).
Borderline cases: choose Critical when fixing the flaw needs new experiments or analyses, \
changes to core equations or proofs, or could change the main claims; choose Minor when a \
textual or editorial fix is enough. When unsure, choose Minor unless the flaw could plausibly \
invalidate the conclusions. Judge from the paper text; do not guess.

Evaluate every flaw id you are given. Reply with one JSON object and nothing else:
{"evaluations": [{"flaw_id": "F01", "is_valid": true, "severity": "Critical"}, {"flaw_id": "F02", \
"is_valid": false, "severity": "None"}]}""")

#: the mapping rules, shared by the one-review and the batched mapping (same decisions asked)
_MAP_RULES = """Rules:
- Use only issue ids from the bank. List each issue the review raises once, at its first \
mention, in the order the review raises them (merge repeated mentions into the first).
- Skip sentences that match no issue, praise, neutral summaries and questions that raise no \
issue of the bank.
- "section_name": the review's own section where the issue appears (for example Weaknesses, \
Questions, Limitations); infer a fitting name when the review has no headers.
- "anchor_quote": 5 to 20 words copied verbatim from the review where it raises the issue.
- "content": a one or two sentence paraphrase of what the review says about the issue."""

MAP_SYSTEM = with_data_rule("""You map one peer review onto a fixed bank of issues that were collected from \
all reviews of the same paper.

""" + _MAP_RULES + """

Reply with one JSON object and nothing else:
{"mentions": [{"issue_id": "F01", "section_name": "Weaknesses", "anchor_quote": "<verbatim \
words>", "content": "<paraphrase>"}]}""")

MAP_BATCH_SYSTEM = with_data_rule("""You map several peer reviews of one paper, each on its own, onto a fixed \
bank of issues that were collected from all reviews of the same paper. Treat every review as if \
it were the only one you were given: what one review raises never depends on another review.

""" + _MAP_RULES
    + """
- Give one entry per review, with its reviewer id exactly as in its [REVIEW: ...] header.

Reply with one JSON object and nothing else:
{"reviews": [{"reviewer_id": "<reviewer id>", "mentions": [{"issue_id": "F01", "section_name": \
"Weaknesses", "anchor_quote": "<verbatim words>", "content": "<paraphrase>"}]}]}""")


def consolidate_system(inp: ConsolidateInput) -> str:
    """Step 1's system prompt with the taxonomy and the pool's reviewer ids."""
    ids = ", ".join(inp.reviewer_ids)
    return with_data_rule(CONSOLIDATE_SYSTEM.format(taxonomy=taxonomy_text(), ids=ids))


def consolidate_user(inp: ConsolidateInput) -> str:
    """Step 1's user message: every review, fenced, under a ``[REVIEWER: id]`` header."""
    parts = ["Reviews to analyse:"]
    for r in inp.reviews:
        parts.append(f"[REVIEWER: {r.reviewer_id}]\n" + fence("REVIEW", r.text.strip()))
    return "\n\n".join(parts)


def validate_user(inp: ValidateInput) -> str:
    """Step 2's user message: the paper excerpt and the flaws as JSON, each fenced."""
    flaws = [
        {
            "flaw_id": f.flaw_id,
            "macro_topic": f.macro_topic,
            "core_summary": f.core_summary,
            "raw_arguments": f.raw_arguments,
        }
        for f in inp.micro_flaws
    ]
    body = json.dumps({"micro_flaws": flaws}, indent=2, ensure_ascii=False)
    return (
        "[PAPER TEXT]\n" + fence("PAPER", inp.paper_excerpt)
        + "\n\n[MICRO-FLAWS]\n" + fence("MICRO-FLAWS", body)
    )


def map_user(inp: MapInput) -> str:
    """Step 3's user message: the issue bank and the review, each fenced."""
    bank = [i.model_dump() for i in inp.issues]
    return (
        "[ISSUE BANK]\n"
        + fence("ISSUE BANK", json.dumps({"issues": bank}, indent=2, ensure_ascii=False))
        + f"\n\n[REVIEW: {inp.reviewer_id}]\n"
        + fence("REVIEW", inp.review_text.strip())
    )


def map_batch_user(inp: MapBatchInput) -> str:
    """The batched mapping's user message: the issue bank once, then each review, each fenced."""
    bank = [i.model_dump() for i in inp.issues]
    parts = ["[ISSUE BANK]\n" + fence("ISSUE BANK", json.dumps({"issues": bank}, indent=2, ensure_ascii=False))]
    for r in inp.reviews:
        parts.append(f"[REVIEW: {r.reviewer_id}]\n" + fence("REVIEW", r.text.strip()))
    return "\n\n".join(parts)

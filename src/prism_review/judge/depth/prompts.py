"""Prompts of the three DoA judge steps (written for prism-review from the spec's intent).

Every reply item carries the index of the unit it is about, so results are attached by index
and a paraphrased unit loses nothing (risk D6).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from prism_review.judge.fence import fence, with_data_rule

SEGMENT_SYSTEM = with_data_rule("""You analyse the argument structure of scientific peer reviews.
Split the review you are given into minimal argumentative units. An argumentative unit is one \
sentence or clause that states a claim, a premise, an observation or a recommendation.
Rules:
- Keep every such unit, including sentences that restate or summarise what the paper does: \
they are observations.
- Copy each unit verbatim (or near-verbatim) from the review; never merge distant text or \
invent text.
- Keep the units in the order they appear in the review.
- Leave out only text that states none of these: section headings, bare labels, greetings and \
thanks.
Answer with one JSON object only, no prose, of the form:
{"arguments": [{"index": 0, "argument": "<verbatim unit>"}, {"index": 1, "argument": "..."}]}""")

SELECT_SYSTEM = with_data_rule("""You analyse the argument structure of scientific peer reviews.
You are given a review already split into numbered sentences. Decide which sentences are \
argumentative units: a sentence that states a claim, a premise, an observation or a \
recommendation is one, including a sentence that restates or summarises what the paper does.
Only sentences that state none of these (section headings, bare labels, greetings and thanks) \
are not units.
Answer with one JSON object only, no prose, listing the argumentative sentences by their \
number, with the sentence copied verbatim:
{"arguments": [{"index": <sentence number>, "argument": "<the sentence>"}, ...]}""")

CLASSIFY_SYSTEM = with_data_rule("""You label the argumentative units of a scientific peer review.
For every unit give:
- "role": "Premise" if the unit gives concrete details, evidence, reasons or specific \
support; "Claim" if it asserts a judgment without direct evidence.
- "aspect": "Soundness" (technical correctness, experiments, methodology, mathematics), \
"Clarity" (writing, presentation, figures), "Contribution" (originality, novelty, \
significance, comparisons with baselines), or "Other" (anything else).
Label every unit exactly once, keep its index and copy its text into "argument".
Answer with one JSON object only, no prose:
{"classified_arguments": [{"index": 0, "argument": "<unit text>", "role": "Claim", "aspect": "Soundness"}, ...]}""")

GROUND_SYSTEM = with_data_rule("""You grade how specifically each premise of a scientific peer \
review is grounded, judging from the review text alone.
Scale for "grounding_score":
0 = generic or vague;
1 = partially specific;
2 = highly specific: cites exact equations, sections, figures, metrics or datasets, or states \
a precise technical issue.
Grade every premise exactly once, keep its index and copy its text into "premise".
Answer with one JSON object only, no prose:
{"grounding_results": [{"index": 0, "premise": "<premise text>", "grounding_score": 2}, ...]}""")


def numbered(items: Sequence[tuple[int, str]]) -> str:
    """Units as a JSON list of {index, text} objects (unambiguous for any text)."""
    return json.dumps([{"index": i, "text": t} for i, t in items], ensure_ascii=False, indent=0)


def segment_user(review: str) -> str:
    """User message of free segmentation."""
    return f"{fence('REVIEW', review)}\n\nReturn the argumentative units of the review as JSON."


def select_user(review: str, sentences: Sequence[str]) -> str:
    """User message of segmentation over given sentences."""
    return (
        f"{fence('REVIEW', review)}\n\nSentences of the review:\n"
        f"{fence('SENTENCES', numbered(list(enumerate(sentences))))}\n\n"
        "Return the argumentative sentences as JSON."
    )


def classify_user(review: str, units: Sequence[tuple[int, str]]) -> str:
    """User message of role/aspect classification."""
    return (
        f"The review, for context:\n{fence('REVIEW', review)}\n\nUnits to label ({len(units)}):\n"
        f"{fence('UNITS', numbered(units))}\n\nReturn one entry per unit as JSON."
    )


def ground_user(review: str, premises: Sequence[tuple[int, str]]) -> str:
    """User message of grounding."""
    return (
        f"The review, for context:\n{fence('REVIEW', review)}\n\nPremises to grade "
        f"({len(premises)}):\n{fence('PREMISES', numbered(premises))}\n\n"
        "Return one entry per premise as JSON."
    )


ANALYSE_SYSTEM = with_data_rule("""You analyse the argument structure of scientific peer reviews.
1. Split the review into minimal argumentative units. An argumentative unit is one sentence or \
clause that states a claim, a premise, an observation or a recommendation. Keep every such unit, \
including sentences that restate or summarise what the paper does (they are observations); copy \
each verbatim (or near-verbatim), never merging distant text or inventing text; keep them in \
review order; leave out only text that states none of these (section headings, bare labels, \
greetings and thanks).
2. For every unit give "role": "Premise" if it gives concrete details, evidence, reasons or \
specific support; "Claim" if it asserts a judgment without direct evidence. And "aspect": \
"Soundness" (technical correctness, experiments, methodology, mathematics), "Clarity" (writing, \
presentation, figures), "Contribution" (originality, novelty, significance, comparisons with \
baselines), or "Other" (anything else).
3. For every Premise, grade from the review text alone how specifically it is grounded, \
"grounding_score": 0 = generic or vague; 1 = partially specific; 2 = highly specific: cites \
exact equations, sections, figures, metrics or datasets, or states a precise technical issue. \
For a Claim write 0 (it is not read).
Answer with one JSON object only, no prose:
{"arguments": [{"index": 0, "argument": "<verbatim unit>", "role": "Premise", "aspect": "Soundness", "grounding_score": 2}, ...]}""")


def analyse_user(review: str) -> str:
    """User message of the one-call analysis (economical protocol)."""
    return f"{fence('REVIEW', review)}\n\nReturn the argumentative units of the review, labelled and graded, as JSON."

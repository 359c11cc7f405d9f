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
- Keep every such unit, including sentences that restate or summarise what the paper does \
or presents: they are units too.
- Copy each unit verbatim (or near-verbatim) from the review; never merge distant text or \
invent text.
- Keep the units in the order they appear in the review.
- Greetings, thanks and remarks about formatting are units too (they are labelled Other \
later); only section headings and bare field labels, which state nothing, are left out.
Answer with one JSON object only, no prose, of the form:
{"arguments": [{"index": 0, "argument": "<verbatim unit>"}, {"index": 1, "argument": "..."}]}""")

SELECT_SYSTEM = with_data_rule("""You analyse the argument structure of scientific peer reviews.
You are given a review already split into numbered sentences. Decide which sentences are \
argumentative units: a sentence that states a claim, a premise, an observation or a \
recommendation is one, including a sentence that restates or summarises what the paper does \
or presents.
Greetings, thanks and remarks about formatting are units too (they are labelled Other later); \
only section headings and bare field labels, which state nothing, are not units.
Answer with one JSON object only, no prose, listing the argumentative sentences by their \
number, with the sentence copied verbatim:
{"arguments": [{"index": <sentence number>, "argument": "<the sentence>"}, ...]}""")

#: the role and aspect definitions, shared by the three-step and the one-call prompts
ROLE_RULES = """"role": "Premise" if the unit gives concrete details, evidence, reasons or \
specific support; "Claim" if it asserts a statement, a judgment or an evaluation without \
direct evidence. Deciding cases: a unit that credits the paper with something (what it \
presents, that it is new) without backing it up is a Claim; a unit that points at something \
concrete the work lacks, such as comparisons with recent baselines, is a Premise."""

ASPECT_RULES = """"aspect": "Soundness" (technical correctness, experiments, methodology, \
mathematics), "Clarity" (writing, presentation, explanations, figures), "Contribution" \
(originality, novelty, significance, comparisons with baselines), or "Other" (anything else, \
such as formatting or a greeting). Deciding cases: a unit saying the paper's approach is new \
is Contribution; a unit saying the evaluation lacks comparisons with recent baselines is \
Soundness (it is about the experiments)."""

#: the grounding scale, shared by the three-step and the one-call prompts
GROUNDING_RULES = """"grounding_score" measures how specific and concrete the evidence or \
explanation the premise gives is: 0 = generic or vague, lacking details; 1 = partially \
specific: it points at a general part of the work but lacks full details (for example, \
missing comparisons with recent baselines, none named, is 1); 2 = highly specific: it cites \
exact equations, sections, figures, specific metrics or datasets, or states a precise \
technical issue."""

CLASSIFY_SYSTEM = with_data_rule(f"""You label the argumentative units of a scientific peer review.
For every unit give:
- {ROLE_RULES}
- {ASPECT_RULES}
Label every unit exactly once, keep its index and copy its text into "argument".
Answer with one JSON object only, no prose:
{{"classified_arguments": [{{"index": 0, "argument": "<unit text>", "role": "Claim", "aspect": "Contribution"}}, \
{{"index": 1, "argument": "<unit text>", "role": "Premise", "aspect": "Soundness"}}, ...]}}""")

GROUND_SYSTEM = with_data_rule(f"""You grade how specifically each premise of a scientific peer \
review is grounded; the review text is given as context.
Scale: {GROUNDING_RULES}
Grade every premise exactly once, keep its index and copy its text into "premise".
Answer with one JSON object only, no prose:
{{"grounding_results": [{{"index": 0, "premise": "<premise text>", "grounding_score": 1}}, ...]}}""")


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


ANALYSE_SYSTEM = with_data_rule(f"""You analyse the argument structure of scientific peer reviews.
1. Split the review into minimal argumentative units. An argumentative unit is one sentence or \
clause that states a claim, a premise, an observation or a recommendation. Keep every such unit, \
including sentences that restate or summarise what the paper does or presents; copy each \
verbatim (or near-verbatim), never merging distant text or inventing text; keep them in review \
order. Greetings, thanks and remarks about formatting are units too (aspect Other); only \
section headings and bare field labels, which state nothing, are left out.
2. For every unit give {ROLE_RULES}
And {ASPECT_RULES}
3. For every Premise, grade how specifically it is grounded (the review is the context): \
{GROUNDING_RULES} For a Claim write 0 (it is not read).
Answer with one JSON object only, no prose:
{{"arguments": [{{"index": 0, "argument": "<verbatim unit>", "role": "Claim", "aspect": "Contribution", "grounding_score": 0}}, \
{{"index": 1, "argument": "<verbatim unit>", "role": "Premise", "aspect": "Soundness", "grounding_score": 1}}, ...]}}""")


def analyse_user(review: str) -> str:
    """User message of the one-call analysis (economical protocol)."""
    return f"{fence('REVIEW', review)}\n\nReturn the argumentative units of the review, labelled and graded, as JSON."

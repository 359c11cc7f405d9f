"""Prompts of the three DoA judge steps (written for prism-review from the spec's intent).

Every reply item carries the index of the unit it is about, so results are attached by index
and a paraphrased unit loses nothing (risk D6).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

SEGMENT_SYSTEM = """You analyse the argument structure of scientific peer reviews.
Split the review you are given into argumentative units. An argumentative unit is the smallest \
stretch of text (usually one sentence, sometimes one clause) that makes a claim, gives a reason \
or evidence, reports an observation about the paper, or recommends/requests something.
Rules:
- Copy each unit verbatim from the review; never rephrase, merge distant text or invent text.
- Keep the units in the order they appear in the review.
- Leave out text that argues nothing: section headings, score lines, greetings and thanks, \
and plain restatements of what the paper does that carry no judgement or evidence.
Answer with one JSON object only, no prose, of the form:
{"arguments": [{"index": 0, "argument": "<verbatim unit>"}, {"index": 1, "argument": "..."}]}"""

SELECT_SYSTEM = """You analyse the argument structure of scientific peer reviews.
You are given a review already split into numbered sentences. Decide which sentences are \
argumentative units: they make a claim or judgement about the paper, give a reason or evidence, \
report a concrete observation used as support, or request/recommend something.
Sentences that are headings, score lines, greetings or thanks, or neutral summaries of what \
the paper does are NOT argumentative.
Answer with one JSON object only, no prose, listing the argumentative sentences by their \
number, with the sentence copied verbatim:
{"arguments": [{"index": <sentence number>, "argument": "<the sentence>"}, ...]}"""

CLASSIFY_SYSTEM = """You label the argumentative units of a scientific peer review.
For every unit give:
- "role": "Premise" if the unit supplies concrete details, evidence, reasons or specific \
support (numbers, references to sections/figures/equations, named datasets or baselines, \
explanations of why something holds); "Claim" if it asserts a judgement, opinion or request \
without giving such support itself.
- "aspect": "Soundness" (technical correctness, methodology, experiments, mathematics, \
evidence for the paper's claims), "Clarity" (writing, presentation, organisation, figures and \
notation), "Contribution" (originality, novelty, significance, motivation, positioning against \
and comparison with prior work or baselines), or "Other" (anything else).
Label every unit exactly once, keep its index and copy its text into "argument".
Answer with one JSON object only, no prose:
{"classified_arguments": [{"index": 0, "argument": "<unit text>", "role": "Claim", "aspect": "Soundness"}, ...]}"""

GROUND_SYSTEM = """You grade how specifically each premise of a scientific peer review is \
grounded, judging from the review text alone.
Scale for "grounding_score":
0 = generic or vague: could be said of almost any paper, points at nothing in particular;
1 = partially specific: refers to a particular part, method or result of the paper, but \
without precise detail;
2 = highly specific: pins down exact equations, sections, figures, tables, metrics, datasets, \
numbers or a precisely stated technical issue.
Grade every premise exactly once, keep its index and copy its text into "premise".
Answer with one JSON object only, no prose:
{"grounding_results": [{"index": 0, "premise": "<premise text>", "grounding_score": 2}, ...]}"""


def numbered(items: Sequence[tuple[int, str]]) -> str:
    """Units as a JSON list of {index, text} objects (unambiguous for any text)."""
    return json.dumps([{"index": i, "text": t} for i, t in items], ensure_ascii=False, indent=0)


def segment_user(review: str) -> str:
    """User message of free segmentation."""
    return f"Review:\n<<<\n{review}\n>>>\n\nReturn the argumentative units as JSON."


def select_user(review: str, sentences: Sequence[str]) -> str:
    """User message of segmentation over given sentences."""
    return (
        f"Review:\n<<<\n{review}\n>>>\n\nSentences:\n{numbered(list(enumerate(sentences)))}\n\n"
        "Return the argumentative sentences as JSON."
    )


def classify_user(review: str, units: Sequence[tuple[int, str]]) -> str:
    """User message of role/aspect classification."""
    return (
        f"Review (for context):\n<<<\n{review}\n>>>\n\nUnits to label ({len(units)}):\n"
        f"{numbered(units)}\n\nReturn one entry per unit as JSON."
    )


def ground_user(review: str, premises: Sequence[tuple[int, str]]) -> str:
    """User message of grounding."""
    return (
        f"Review (for context):\n<<<\n{review}\n>>>\n\nPremises to grade ({len(premises)}):\n"
        f"{numbered(premises)}\n\nReturn one entry per premise as JSON."
    )

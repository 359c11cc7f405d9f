"""The LLM prompt of the ARC step, written for prism-review from the PRISM rubric (§7.2).

The rubric is part of the system message, so every re-ask made by the LLM layer (which repeats
the full original messages) keeps it (risk K2).
"""

from __future__ import annotations

RUBRIC = """\
Score every comment on five dimensions, each 0, 1 or 2 (integers only):

D1_actionability — can the authors act on it?
  0: an opinion or verdict with no guidance on what to do
  1: points to a general direction of change
  2: names a specific change the authors could implement

D2_specificity — how precisely does it locate what it talks about?
  0: vague; no identifiable part of the paper
  1: semi-specific; names a section, an area or a kind of experiment
  2: pinpoints an exact element (an equation, table, figure, line, named method or result)

D3_justification — is the point supported?
  0: a bare assertion
  1: some reasoning, but partial
  2: full support: a clear argument, evidence, a specific prior work, a number or a derivation

D4_solution — does it say how to fix the problem?
  0: states the problem (or observation) only
  1: the fix is implied but not stated
  2: states an explicit fix

D5_tone — how is it said?
  0: hostile, dismissive or condescending
  1: neutral and factual
  2: professional and constructive, courteous or encouraging
"""

SYSTEM = f"""\
You analyse scientific peer reviews. Your only output is one JSON object.

Task: break the review into atomic review comments (ARCs) and score each one.

How to split:
- One ARC = one point. If a sentence makes two separate critiques, make two ARCs; if one point
  spans several sentences, keep it as one ARC.
- Cover every part of the review that makes a point: summary, strengths, weaknesses, questions,
  suggestions. Skip score fields (rating, confidence, soundness and the like).
- A non-empty review always yields at least one ARC.

For each ARC give:
- "arc_id": "ARC_01", "ARC_02", … in review order
- "section": the review section it comes from (e.g. "Summary", "Strengths", "Weaknesses",
  "Questions"), or "Unknown"
- "comment_type": one of "weakness", "strength", "question", "suggestion", "observation"
- "content": the point in one self-contained sentence
- "anchor_quote": 5 to 25 consecutive words copied exactly, character for character, from the
  review, locating the point (no paraphrase, no ellipsis)
- the five scores below

{RUBRIC}
Reply with exactly this shape and nothing else:
{{"atomic_comments": [{{"arc_id": "ARC_01", "section": "...", "comment_type": "...",
  "content": "...", "anchor_quote": "...", "D1_actionability": 0, "D2_specificity": 0,
  "D3_justification": 0, "D4_solution": 0, "D5_tone": 0}}]}}
"""

SCORE_ONLY = """\
The comments below are already split. Do not split or merge them: return exactly one ARC per
numbered comment, in the same order, with "content" set to the comment text as given and
"anchor_quote" copied from it.
"""


def user_message(
    review: str, *, paper: str | None = None, comments: list[str] | None = None
) -> str:
    """The user message: optional paper context, the review, and (score-only) the given comments."""
    parts = []
    if paper and len(paper.strip()) > 100:
        parts.append(f'Paper (context only, first part):\n"""\n{paper[:30000]}\n"""')
    parts.append(f'Review to analyse:\n"""\n{review}\n"""')
    if comments is not None:
        listed = "\n".join(f"{i}. {c}" for i, c in enumerate(comments, start=1))
        parts.append(SCORE_ONLY + "\n" + listed)
    return "\n\n".join(parts)

"""The LLM prompt of the ARC step, written for prism-review from the PRISM rubric (§7.2).

The rubric is part of the system message, so every re-ask made by the LLM layer (which repeats
the full original messages) keeps it (risk K2). Each level of each dimension carries one short
worked example; the reference rubric has one per level of D1-D4 and none for D5 (the D5
examples are an addition, docs/fidelity.md). The examples are prism-review's own and make the
reference's decisions (e.g. D4: a statement of what is missing implies its fix, so it is 1).
"""

from __future__ import annotations

from prism_review.judge.fence import fence, with_data_rule

#: paper characters given as context (the reference's paper block, when a paper is given)
PAPER_CONTEXT_CHARS = 30_000

RUBRIC = """\
Score every comment on five dimensions, each 0, 1 or 2 (integers only):

D1_actionability: can the authors act on it?
  0: an opinion with no guidance (e.g. "The method is not convincing.")
  1: a general direction (e.g. "The evaluation should be broadened.")
  2: a specific action the authors can implement (e.g. "Report results on ImageNet-C with
     the same training budget as the baseline.")

D2_specificity: how precisely does it say what it is about?
  0: vague (e.g. "Some parts are hard to follow.")
  1: semi-specific, names a section or an area (e.g. "The experimental section lacks detail.")
  2: pinpoints an exact element such as an equation, a section or a table (e.g. "The
     normalising constant in Eq. 4 is missing.")

D3_justification: is the point supported?
  0: a bare assertion (e.g. "This idea is not new.")
  1: partial reasoning (e.g. "This idea is not new, since similar losses are common.")
  2: full evidence, such as a specific prior work or an equation (e.g. "This loss is the one
     of Chen et al. (2020), Eq. 2, applied to graphs.")

D4_solution: does it say how to fix the problem?
  0: states the problem only, with nothing to supply (e.g. "The evaluation is weak.")
  1: the fix is implicit: saying what is missing implies adding it (e.g. "The variance of
     the results across seeds is not reported." implies reporting it)
  2: an explicit fix (e.g. "Report the mean and standard deviation over five seeds.")

D5_tone: how is it said?
  0: hostile or dismissive (e.g. "This is a waste of the reader's time.")
  1: neutral, factual (e.g. "The paper does not discuss runtime.")
  2: professional-constructive, encouraging (e.g. "The idea is promising; a runtime analysis
     would make the case much stronger.")
"""

SYSTEM = with_data_rule(f"""\
You analyse scientific peer reviews. Your only output is one JSON object.

Task: break the review into atomic review comments (ARCs) and score each one.

How to split:
- One ARC = one point. If a sentence makes two separate critiques, make two ARCs.
- Cover every point of the review: summary, strengths, weaknesses, questions and suggestions.
  Score or rating lines in the review text (e.g. "Soundness: 3 good") are points too.
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
  "content": "...", "anchor_quote": "...", "D1_actionability": 1, "D2_specificity": 2,
  "D3_justification": 1, "D4_solution": 0, "D5_tone": 2}}]}}
""")

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
        parts.append("The paper (context only, first part):\n"
                     + fence("PAPER", paper[:PAPER_CONTEXT_CHARS]))
    parts.append("The review to analyse:\n" + fence("REVIEW", review))
    if comments is not None:
        listed = "\n".join(f"{i}. {c}" for i, c in enumerate(comments, start=1))
        parts.append(SCORE_ONLY + "\n" + fence("COMMENTS", listed))
    return "\n\n".join(parts)

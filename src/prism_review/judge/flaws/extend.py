"""``flaws.extend``: one system's review added to the human panel's consolidated flaws.

The economical protocol (``dimensions/flaws_human_side.py``) consolidates a paper's human
reviews once (``flaws.consolidate`` over the humans alone) and then, for each (human panel,
system) pairing, asks this step with only that system's review and the panel's flaws: every
weakness the review raises is either one of the panel's flaws (its id) or a new flaw (a new id,
a taxonomy type and a summary), each with the review's verbatim quote. Under the same rules as
Step 1, so the pairing's micro-flaws are the ones a consolidation of the humans and the review
would form, with the panel's part decided once per paper.

The system prompt and the panel's flaws come first and are the same for every pairing of the
paper, so a provider's prompt caching serves them; the review comes last.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.fence import fence, with_data_rule
from prism_review.judge.flaws import offline
from prism_review.judge.flaws.models import ConsolidateInput, MicroFlaw, ReviewerText
from prism_review.judge.flaws.prompts import CONSOLIDATE_SYSTEM
from prism_review.judge.flaws.taxonomy import canonical_label, taxonomy_text
from prism_review.judge.markup import offline_view

#: the id prefix of a flaw the review raises that the panel's flaws do not hold
NEW_PREFIX = "N"
#: Step 1's output budget (a review can raise many flaws)
EXTEND_TOKENS = 35_000

#: Step 1's rules for forming micro-flaws, shared word for word
_RULES = CONSOLIDATE_SYSTEM.split("How to form micro-flaws:", 1)[1].split("Classify each flaw", 1)[0].strip()

EXTEND_SYSTEM = """You are the meta-reviewer of a scientific paper. The paper's human reviews \
were already consolidated into micro-flaws: every distinct weakness raised becomes one \
micro-flaw, with the reviewers' quotes. You are now given one more review. Add it to the \
consolidation: for every distinct weakness this review raises, decide whether it is one of the \
listed micro-flaws or a new one.

How to form micro-flaws:
""" + _RULES + """

For each weakness the review raises:
- when it is the same flaw as a listed micro-flaw (under the rules above), give that flaw's \
"flaw_id" exactly as listed, and leave "macro_topic" and "core_summary" empty;
- otherwise it is a new flaw: give it a new id N01, N02, ... (one per new flaw), exactly one \
topic and one type from the taxonomy below, written "<n>. <Topic> - <Type>", and a \
one-sentence "core_summary".

Taxonomy:
{taxonomy}

"quote" is the exact quote of the review's argument. List each flaw once; weaknesses of the \
review that together form one flaw share one entry. Never change, merge or split the listed \
micro-flaws.

Reply with one JSON object and nothing else:
{{"raised": [{{"flaw_id": "F01", "macro_topic": "", "core_summary": "", "quote": "<verbatim \
quote>"}}, {{"flaw_id": "N01", "macro_topic": "<n>. <Topic> - <Type>", "core_summary": "<one \
sentence stating the problem>", "quote": "<verbatim quote>"}}]}}"""


class ExtendInput(BaseModel):
    """The panel's consolidated flaws (ids, topics, summaries, quotes) and one more review."""

    paper_id: str = ""
    flaws: list[MicroFlaw]
    review: ReviewerText

    @property
    def flaw_ids(self) -> list[str]:
        return [f.flaw_id for f in self.flaws]


class RaisedFlaw(BaseModel):
    """One weakness of the review: a listed flaw's id, or a new flaw with its topic and summary."""

    flaw_id: str
    macro_topic: str = ""
    core_summary: str = ""
    quote: str = ""

    @field_validator("flaw_id", "macro_topic", "core_summary", "quote", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else str(v)


class ExtendOutput(BaseModel):
    raised: list[RaisedFlaw] = Field(default_factory=list)


def extend_user(inp: ExtendInput) -> str:
    """The panel's flaws first (the same for every pairing of the paper), then the review."""
    flaws = [{"flaw_id": f.flaw_id, "macro_topic": f.macro_topic, "core_summary": f.core_summary,
              "raw_arguments": f.raw_arguments} for f in inp.flaws]
    body = json.dumps({"micro_flaws": flaws}, indent=2, ensure_ascii=False)
    return ("[CONSOLIDATED MICRO-FLAWS]\n" + fence("MICRO-FLAWS", body)
            + f"\n\n[REVIEWER: {inp.review.reviewer_id}]\n" + fence("REVIEW", inp.review.text.strip()))


class ExtendStep(JudgeStep[ExtendInput, ExtendOutput]):
    """One review added to the panel's micro-flaws (economical protocol, per pairing)."""

    name: ClassVar[str] = "flaws.extend"
    reply_cap: ClassVar[int | None] = EXTEND_TOKENS
    Input = ExtendInput
    Output = ExtendOutput
    temperature: ClassVar[float] = 0.1

    def __init__(self, params: offline.ClusterParams | None = None) -> None:
        self.params = params or offline.ClusterParams()

    def messages(self, inp: ExtendInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=with_data_rule(EXTEND_SYSTEM.format(taxonomy=taxonomy_text()))),
            ChatMessage(role="user", content=extend_user(inp)),
        ]

    def offline(self, inp: ExtendInput) -> ExtendOutput:
        """Step 1's offline clustering over the panel's flaws (each as a pseudo-reviewer holding
        its summary and quotes) and the review: a cluster of the review's that holds a listed
        flaw is that flaw, one that holds none is new."""
        listed = [ReviewerText(reviewer_id=f.flaw_id, text=" ".join([f.core_summary, *f.raw_arguments.values()]))
                  for f in inp.flaws]
        own = inp.review.reviewer_id
        review = ReviewerText(reviewer_id=own, text=offline_view(inp.review.text))
        out = offline.consolidate(ConsolidateInput(paper_id=inp.paper_id, reviews=[*listed, review]), self.params)
        ids = set(inp.flaw_ids)
        raised = []
        for f in out.micro_flaws:
            if own not in f.raw_arguments:
                continue
            match = next((k for k in f.raw_arguments if k in ids), None)
            raised.append(RaisedFlaw(flaw_id=match or "", macro_topic="" if match else f.macro_topic,
                                     core_summary="" if match else f.core_summary, quote=f.raw_arguments[own]))
        return ExtendOutput(raised=raised)

    def finalize(self, inp: ExtendInput, out: ExtendOutput) -> ExtendOutput:
        """A listed id once (its first quote); every other entry a new flaw ``N01``, ``N02``, ...
        in the reply's order, with a canonical taxonomy label."""
        ids = set(inp.flaw_ids)
        seen: set[str] = set()
        kept: list[RaisedFlaw] = []
        n = 0
        for r in out.raised:
            fid = r.flaw_id.strip()
            if fid in ids:
                if fid not in seen:
                    seen.add(fid)
                    kept.append(RaisedFlaw(flaw_id=fid, quote=r.quote))
                continue
            n += 1
            while f"{NEW_PREFIX}{n:02d}" in ids:  # never a listed id
                n += 1
            kept.append(RaisedFlaw(flaw_id=f"{NEW_PREFIX}{n:02d}", macro_topic=canonical_label(r.macro_topic),
                                   core_summary=r.core_summary.strip(), quote=r.quote))
        return ExtendOutput(raised=kept)

    def check(self, inp: ExtendInput, out: ExtendOutput) -> str | None:
        """A new flaw needs a summary (it is validated and banked from it)."""
        ids = set(inp.flaw_ids)
        bare = [r.flaw_id for r in out.raised if r.flaw_id.strip() not in ids and not r.core_summary.strip()]
        if bare:
            return ("These entries are neither a listed flaw id (" + ", ".join(inp.flaw_ids or ["none"])
                    + ") nor a new flaw with a core_summary: " + ", ".join(bare)
                    + ". Give each new flaw a topic and a one-sentence core_summary.")
        return None

    def max_tokens(self, inp: ExtendInput) -> int | None:
        return EXTEND_TOKENS


def pairing_flaws(panel: list[MicroFlaw], raised: list[RaisedFlaw], reviewer_id: str) -> list[MicroFlaw]:
    """The pairing's micro-flaws: the panel's, with the review's quote added to those it raised,
    then the review's new flaws (raised by it alone)."""
    quotes = {r.flaw_id: r.quote for r in raised}
    out = [f.model_copy(update={"raw_arguments": {**f.raw_arguments, reviewer_id: quotes[f.flaw_id]}})
           if f.flaw_id in quotes else f for f in panel]
    listed = {f.flaw_id for f in panel}
    out += [MicroFlaw(flaw_id=r.flaw_id, macro_topic=r.macro_topic, core_summary=r.core_summary,
                      raw_arguments={reviewer_id: r.quote}) for r in raised if r.flaw_id not in listed]
    return out

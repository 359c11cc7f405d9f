"""Typed records that cross module boundaries: papers, reviews, decisions.

Everything a loader produces and everything a dimension consumes is one of these models.
Loaders never know about dimensions; dimensions never read files.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class DecisionKind(StrEnum):
    """The decision classes PRISM distinguishes."""

    ACCEPT_ORAL = "accept-oral"
    ACCEPT_SPOTLIGHT = "accept-spotlight"
    ACCEPT_POSTER = "accept-poster"
    CONDITIONAL = "conditional"
    REJECT = "reject"
    PENDING = "pending"
    UNKNOWN = "unknown"


_ACCEPT_KINDS = {
    DecisionKind.ACCEPT_ORAL,
    DecisionKind.ACCEPT_SPOTLIGHT,
    DecisionKind.ACCEPT_POSTER,
    DecisionKind.CONDITIONAL,
}


class Decision(BaseModel):
    """A paper decision, normalised to a :class:`DecisionKind`, keeping the raw string."""

    model_config = ConfigDict(frozen=True)

    kind: DecisionKind = DecisionKind.UNKNOWN
    raw: str | None = None

    @classmethod
    def parse(cls, raw: Any) -> Decision:
        """Read a decision from any of the strings the corpora use.

        "Pending" and the meta-review placeholder "TBD" are a missing decision, not a reject.
        """
        if raw is None:
            return cls(kind=DecisionKind.UNKNOWN, raw=None)
        text = str(raw).strip()
        low = text.lower()
        if not low:
            kind = DecisionKind.UNKNOWN
        elif "pending" in low or low in {"tbd", "n/a", "none"}:
            kind = DecisionKind.PENDING
        elif "conditional" in low:
            kind = DecisionKind.CONDITIONAL
        elif "reject" in low or "withdraw" in low or low == "rejected":
            kind = DecisionKind.REJECT
        elif "oral" in low:
            kind = DecisionKind.ACCEPT_ORAL
        elif "spotlight" in low or "notable" in low or "top 25" in low:
            kind = DecisionKind.ACCEPT_SPOTLIGHT
        elif "accept" in low or "poster" in low:
            kind = DecisionKind.ACCEPT_POSTER
        else:
            kind = DecisionKind.UNKNOWN
        return cls(kind=kind, raw=text)

    @property
    def accepted(self) -> bool | None:
        """True for any accept class, False for reject, None when unknown or pending."""
        if self.kind in _ACCEPT_KINDS:
            return True
        if self.kind == DecisionKind.REJECT:
            return False
        return None


class Section(BaseModel):
    """One named section of a review or paper, in document order."""

    name: str
    text: str


class BibEntry(BaseModel):
    """One bibliography entry (from GROBID or a dataset's own references)."""

    title: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None


class Paper(BaseModel):
    """A submitted paper with what the corpora know about it."""

    paper_id: str
    venue: str
    title: str = ""
    abstract: str = ""
    full_text: str = ""
    sections: list[Section] = Field(default_factory=list)
    bibliography: list[BibEntry] = Field(default_factory=list)
    decision: Decision = Field(default_factory=Decision)
    meta_review: str | None = None
    keywords: list[str] = Field(default_factory=list)
    source_path: str | None = None


#: the system id of human reviews
HUMAN_SYSTEM = "human"


def human_reviewer_id(index: int) -> str:
    """The reviewer id of the ``index``-th human review (0-based in, 1-based out: ``Human_1``)."""
    return f"Human_{index + 1}"


class Review(BaseModel):
    """One review by one reviewer (a person or an LLM system) of one paper.

    ``sections`` keep the review's own order. ``raw_scores`` hold the venue's score fields as
    written ("6: marginally above", "3 good"); ``scores`` hold the same fields normalised to
    [0, 1] through the venue registry (None when a field cannot be read).
    """

    paper_id: str
    venue: str
    system: str
    reviewer_id: str
    sections: list[Section] = Field(default_factory=list)
    raw_scores: dict[str, Any] = Field(default_factory=dict)
    scores: dict[str, float | None] = Field(default_factory=dict)
    source_path: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    def section(self, name: str) -> str | None:
        """Text of the first section whose name matches ``name`` case-insensitively."""
        want = _norm_name(name)
        for sec in self.sections:
            if _norm_name(sec.name) == want:
                return sec.text
        return None

    @property
    def text(self) -> str:
        """The whole review as markdown-ish text with bold section headers."""
        return render_sections(self.sections)


def _norm_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def render_sections(sections: list[Section]) -> str:
    """Render sections as ``**Name:**\\n text`` blocks (an unnamed section is plain text)."""
    parts = []
    for sec in sections:
        body = sec.text.strip()
        if not body:
            continue
        parts.append(f"**{sec.name}:**\n{body}" if sec.name else body)
    return "\n\n".join(parts)

"""Typed inputs and outputs of the three flaw steps (consolidate, validate, map).

``raw_arguments`` and ``evaluations`` are held as the spec's objects keyed by reviewer id and flaw
id, but their JSON schema (what a model is asked to produce) is a list of ``{reviewer_id,
quote}`` / ``{flaw_id, is_valid, severity}`` objects: an object with free keys cannot be a strict
schema, and a server that decodes under a closed one can only answer ``{}``. Both the list form
and the keyed form are read. Labels are read case-insensitively; an unreadable severity becomes
``None`` (not counted as a valid flaw).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, WithJsonSchema, field_validator

DEFAULT_PAPER_CHARS = 45_000

Severity = Literal["Critical", "Minor", "None"]

#: the asked-for shape of ``raw_arguments``: one entry per reviewer who raised the flaw
_ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "one entry per reviewer who raised the flaw, with a verbatim quote",
    "items": {
        "type": "object",
        "properties": {
            "reviewer_id": {"type": "string", "description": "exactly as in the input"},
            "quote": {"type": "string", "description": "verbatim from that reviewer's text"},
        },
        "required": ["reviewer_id", "quote"],
        "additionalProperties": False,
    },
}
#: the asked-for shape of ``evaluations``: one entry per flaw id
_EVALUATIONS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "one evaluation per flaw id of the input",
    "items": {
        "type": "object",
        "properties": {
            "flaw_id": {"type": "string"},
            "is_valid": {"type": "boolean"},
            "severity": {"type": "string", "enum": ["Critical", "Minor", "None"]},
        },
        "required": ["flaw_id", "is_valid", "severity"],
        "additionalProperties": False,
    },
}


class ReviewerText(BaseModel):
    """One reviewer of the pool: its exact id (``Human_<k>`` or ``LLM_Reviewer``) and text."""

    reviewer_id: str
    text: str


class ConsolidateInput(BaseModel):
    """Step 1: the pooled reviews of one paper (humans first, the LLM last)."""

    paper_id: str = ""
    reviews: list[ReviewerText]

    @property
    def reviewer_ids(self) -> list[str]:
        return [r.reviewer_id for r in self.reviews]


class MicroFlaw(BaseModel):
    """One distinct flaw with a verbatim quote from every reviewer who raised it."""

    flaw_id: str
    macro_topic: str = ""
    core_summary: str = ""
    raw_arguments: Annotated[dict[str, str], WithJsonSchema(_ARGUMENTS_SCHEMA, mode="validation")] = (
        Field(default_factory=dict))

    @field_validator("raw_arguments", mode="before")
    @classmethod
    def _args(cls, v: Any) -> Any:
        if isinstance(v, list):  # [{"reviewer_id": .., "quote": ..}]
            out: dict[str, str] = {}
            for item in v:
                if isinstance(item, dict):
                    rid = item.get("reviewer_id") or item.get("reviewer") or item.get("id")
                    if rid:
                        out.setdefault(str(rid), str(item.get("quote") or item.get("text") or ""))
            return out
        if isinstance(v, dict):
            return {str(k): "" if q is None else str(q) for k, q in v.items()}
        return v

    @field_validator("flaw_id", "macro_topic", "core_summary", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else str(v)


class ConsolidateOutput(BaseModel):
    """Step 1's answer."""

    micro_flaws: list[MicroFlaw] = Field(default_factory=list)


class ValidateInput(BaseModel):
    """Step 2: the paper text (the first ``max_paper_chars`` are used) and the micro-flaws."""

    paper_text: str
    micro_flaws: list[MicroFlaw]
    max_paper_chars: int = DEFAULT_PAPER_CHARS

    @property
    def paper_excerpt(self) -> str:
        return self.paper_text[: self.max_paper_chars]


class FlawEvaluation(BaseModel):
    """Is the flaw real and correctly argued, and how severe is it."""

    is_valid: bool
    severity: Severity = "None"

    @field_validator("is_valid", mode="before")
    @classmethod
    def _bool(cls, v: Any) -> Any:
        if isinstance(v, str):
            return v.strip().lower() in {"true", "yes", "valid", "1"}
        return bool(v)

    @field_validator("severity", mode="before")
    @classmethod
    def _sev(cls, v: Any) -> str:
        low = str(v or "").strip().lower()
        if low.startswith("crit") or low in {"major", "high"}:
            return "Critical"
        if low.startswith("min") or low == "low":
            return "Minor"
        return "None"


class ValidateOutput(BaseModel):
    """Step 2's answer: one evaluation per flaw id."""

    evaluations: Annotated[dict[str, FlawEvaluation],
                           WithJsonSchema(_EVALUATIONS_SCHEMA, mode="validation")] = Field(
        default_factory=dict)

    @field_validator("evaluations", mode="before")
    @classmethod
    def _list(cls, v: Any) -> Any:
        if isinstance(v, list):
            return {str(e.get("flaw_id")): e for e in v if isinstance(e, dict) and e.get("flaw_id")}
        return v


class Issue(BaseModel):
    """One entry of the valid-issue bank."""

    issue_id: str
    shared_severity: Literal["Critical", "Minor"]
    canonical_summary: str = ""
    macro_topic: str = ""


class MapInput(BaseModel):
    """Step 3: one review and the paper's valid-issue bank."""

    reviewer_id: str
    review_text: str
    issues: list[Issue]
    #: this reviewer's own Step 1 quote per issue id; used by the offline judge only (not sent)
    hints: dict[str, str] = Field(default_factory=dict)


class Mention(BaseModel):
    """Where a review raises a bank issue: its section, a verbatim anchor and a paraphrase."""

    issue_id: str
    section_name: str = ""
    anchor_quote: str = ""
    content: str = ""

    @field_validator("issue_id", "section_name", "anchor_quote", "content", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else str(v)


class MapOutput(BaseModel):
    """Step 3's answer: the review's mentions in order of first appearance."""

    mentions: list[Mention] = Field(default_factory=list)


class MapBatchInput(BaseModel):
    """Step 3 for several reviews of one paper at once: the paper's valid-issue bank, sent once,
    and each review (``reviews``' ids are the paper-level ids); economical protocol only."""

    reviews: list[ReviewerText]
    issues: list[Issue]
    #: per reviewer id, its own Step 1 quote per issue id; used by the offline judge only (not sent)
    hints: dict[str, dict[str, str]] = Field(default_factory=dict)

    @property
    def reviewer_ids(self) -> list[str]:
        return [r.reviewer_id for r in self.reviews]

    def single(self, i: int) -> MapInput:
        """The i-th review's one-review mapping request (what the reference protocol sends)."""
        r = self.reviews[i]
        return MapInput(reviewer_id=r.reviewer_id, review_text=r.text, issues=self.issues,
                        hints=self.hints.get(r.reviewer_id, {}))


class ReviewMentions(BaseModel):
    """One review's mentions inside a batched mapping answer."""

    reviewer_id: str
    mentions: list[Mention] = Field(default_factory=list)

    @field_validator("reviewer_id", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else str(v).strip()


class MapBatchOutput(BaseModel):
    """The batched mapping's answer: one entry per review of the input."""

    reviews: list[ReviewMentions] = Field(default_factory=list)

    def by_reviewer(self) -> dict[str, list[Mention]]:
        out: dict[str, list[Mention]] = {}
        for r in self.reviews:
            out.setdefault(r.reviewer_id, r.mentions)
        return out

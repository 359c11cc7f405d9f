"""Offline validity check of a criticism against the paper text.

A criticism is judged invalid when the paper contradicts it on something checkable:

* **references** — it names a table, figure, section, equation, appendix, theorem … number
  that the paper text does not contain;
* **absence claims** — it says something is missing ("no ablation", "lacks a discussion of
  limitations", "does not compare with X") while the paper mentions the missing thing at least
  ``absence_hits`` times;
* **numbers** — it quotes a decimal or percentage the paper does not contain;
* **out-of-scope requests** — it asks for work beyond the paper's scope or stays vague (other
  languages, domains or tasks, ethics and societal impact, "further analysis", "would be
  interesting", "could be more comprehensive"): the spec counts unreasonable requests as
  invalid;
* **topicality** — fewer than ``min_overlap`` of its content words occur in the paper at all
  (the criticism is about something else); judged only when the paper text is long enough
  to have a vocabulary.

Every rule can be switched off; the defaults were chosen before measuring and are the ones the
agreement figures report (see ``prism agreement --dataset revutil-llm-reviews``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

_REF = re.compile(
    r"\b(table|tab\.|figure|fig\.|section|sec\.|equation|eqn?\.|appendix|theorem|lemma"
    r"|algorithm|definition|proposition|corollary)\s*\(?\s*([A-Z]?\d+(?:\.\d+)*|[A-H])\b\)?",
    re.I,
)
_REF_KIND = {
    "tab.": "table",
    "fig.": "figure",
    "sec.": "section",
    "eq.": "equation",
    "eqn.": "equation",
}
_KIND_PATTERN = {
    "table": r"(table|tab\.)",
    "figure": r"(figure|fig\.)",
    "section": r"(section|sec\.|§)",
    "equation": r"(equation|eqn?\.|eq)",
    "appendix": r"appendix",
}
_NUMBER = re.compile(r"(?<![\w.])(\d+\.\d+|\d+(?:\.\d+)?\s?%)")
_ABSENCE = re.compile(
    r"\b(?:no|lacks?|lacking|lack of|missing|absence of|without|fails? to (?:include|provide|report"
    r"|discuss|show|compare|mention|consider|evaluate|address)|(?:does|do|did) not (?:include|provide"
    r"|report|discuss|show|present|compare|mention|consider|evaluate|address|analy[sz]e)"
    r"|not (?:discussed|provided|reported|included|mentioned|considered|evaluated|compared|addressed))"
    r"\s+(?:any |an |a |the |with |of |on |about |to )*((?:[\w-]+\s+){0,3}[\w-]+)",
    re.I,
)
_SPECULATIVE = re.compile(
    r"\bother (languages?|domains?|tasks?|modalities|settings|application areas)|non-english"
    r"|beyond (the )?(datasets?|tasks?|scope|english)|more diverse|wider range|broader range"
    r"|\bethic|privacy|societal|future work|further (investigation|analysis|exploration|research"
    r"|insights?|studies)|deeper (analysis|insights?|understanding)|would (have been|be) (nice"
    r"|interesting|helpful|beneficial|valuable)|could benefit|more comprehensive|more in-depth"
    r"|more thorough|remains unclear|it is unclear how well|could (also )?be (further|more)",
    re.I,
)
_WORD = re.compile(r"[a-z][a-z-]{3,}")
#: words that say nothing about the paper's content (review and academic boilerplate)
_GENERIC_WORDS = """
paper authors author work method methods approach approaches proposed propose proposes
results result experiments experiment experimental evaluation evaluations analysis analyses
discussion discuss details detail study studies section sections figure figures table tables
more further additional some which their there these those this that with from have been
would could should might also however although while whether about into than they them other
such only very much many most well clear unclear clarity better provide provides provided
lack lacks lacking missing limited insufficient does more less make makes made including
include includes included need needs needed seems seem appear appears think believe
understand understanding really quite rather point points issue issues concern concerns
question questions comment comments weakness weaknesses strength strengths reader readers
explain explanation explanations justification justify like just even what when where will
being used using uses case cases given give example examples terms term show shows shown
novel novelty contribution contributions significant significance interesting important
impact main overall different various several specific particular particularly compared
comparison comparisons compare against baseline baselines evaluate evaluated performance
improvement improvements demonstrate demonstrates effectiveness effective
"""
GENERIC = frozenset(_GENERIC_WORDS.split())


@lru_cache(maxsize=1)
def opinion_words() -> frozenset[str]:
    """Opinion words (the VADER sentiment lexicon): they judge, they do not point at content."""
    try:
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
    except ImportError:  # pragma: no cover
        return frozenset()
    return frozenset(w for w in SentimentIntensityAnalyzer().lexicon if w.isalpha())


_STOP_AFTER_ABSENCE = GENERIC | frozenset(
    ["discussion", "analysis", "comparison", "comparisons", "study"]
)


@dataclass
class ValidityParams:
    """Switches and thresholds of the offline validity check."""

    check_refs: bool = True
    check_numbers: bool = True
    check_absence: bool = True
    check_speculative: bool = True
    #: judge criticisms quoting a formula of the paper by :mod:`.edits`
    check_edits: bool = True
    edit_similarity: float = 60.0
    absence_hits: int = 3
    min_overlap: float = 0.5
    min_content_words: int = 3
    #: topicality is only judged against a paper text with at least this many distinct words
    min_paper_vocab: int = 300


@dataclass
class PaperIndex:
    """A paper text prepared for lookups (lower-cased, whitespace folded, vocabulary)."""

    text: str
    low: str = ""
    vocab: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.low = " ".join(self.text.lower().split())
        self.vocab = {_stem(w) for w in _WORD.findall(self.low)}

    def count(self, term: str) -> int:
        return len(re.findall(r"\b" + re.escape(term.lower()), self.low))


def _stem(w: str) -> str:
    w = w.lower().strip("-")
    for suf in ("ations", "ation", "ings", "ing", "ies", "es", "s", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def content_words(text: str) -> list[str]:
    """The content words of a criticism (lower-cased, boilerplate removed)."""
    op = opinion_words()
    return [w for w in _WORD.findall(text.lower()) if w not in GENERIC and w not in op]


def missing_refs(text: str, paper: PaperIndex) -> list[str]:
    """References to numbered parts of the paper that the paper text lacks."""
    out = []
    for m in _REF.finditer(text):
        kind = _REF_KIND.get(m.group(1).lower(), m.group(1).lower())
        num = m.group(2).lower()
        pat = _KIND_PATTERN.get(kind, re.escape(kind))
        rx = pat + r"\s*\(?\s*" + re.escape(num) + r"\b"
        if kind == "equation":
            rx = r"(" + rx + r"|\(\s*" + re.escape(num) + r"\s*\))"
        if not re.search(rx, paper.low):
            out.append(m.group(0))
    return out


def missing_numbers(text: str, paper: PaperIndex) -> list[str]:
    """Decimals and percentages quoted by the criticism that the paper does not contain."""
    out = []
    for m in _NUMBER.finditer(text):
        num = m.group(1).replace(" ", "").rstrip("%")
        if num not in paper.low:
            out.append(m.group(1))
    return out


def contradicted_absences(text: str, paper: PaperIndex, hits: int) -> list[str]:
    """Things the criticism calls missing that the paper mentions at least ``hits`` times."""
    out = []
    for m in _ABSENCE.finditer(text):
        words = [w for w in _WORD.findall(m.group(1).lower()) if w not in _STOP_AFTER_ABSENCE]
        if not words:
            continue
        key = max(words, key=len)
        if paper.count(_stem(key)) >= hits:
            out.append(key)
    return out


def overlap(text: str, paper: PaperIndex) -> float | None:
    """Share of the criticism's content words found in the paper (None when too few words)."""
    words = content_words(text)
    if not words:
        return None
    return sum(1 for w in words if _stem(w) in paper.vocab) / len(words)


def judge(text: str, paper: PaperIndex, params: ValidityParams) -> tuple[bool, list[str]]:
    """(is the criticism valid?, reasons it is not)."""
    reasons: list[str] = []
    if params.check_refs:
        reasons += [f"reference not in paper: {r}" for r in missing_refs(text, paper)]
    if params.check_numbers:
        reasons += [f"number not in paper: {n}" for n in missing_numbers(text, paper)]
    if params.check_absence:
        reasons += [
            f"paper does mention: {k}"
            for k in contradicted_absences(text, paper, params.absence_hits)
        ]
    if params.check_speculative:
        m = _SPECULATIVE.search(text)
        if m:
            reasons.append(f"out-of-scope or vague request: {m.group(0)}")
    words = content_words(text)
    ov = overlap(text, paper)
    enough_paper = len(paper.vocab) >= params.min_paper_vocab
    if (
        enough_paper
        and ov is not None
        and len(words) >= params.min_content_words
        and ov < params.min_overlap
    ):
        reasons.append(f"off-topic: {ov:.2f} of content words in paper")
    return (not reasons), reasons

"""Sentences addressed to the judge rather than about the paper, which offline judges skip.

A review talks about a paper to its authors and the area chair: what the paper does, what is
wrong with it, what to change. A block left in a review to steer whoever scores it talks about
something else: the scoring itself. It tells the reader to set its instructions aside, gives it
a role, names the review as the thing being graded, asks for values on every dimension, or says
what to put in the reader's output. The offline judges read sentences, so such a sentence became
a novelty claim ("every novelty claim is supported by prior work"), a premise or a comment
(issue 16). LLM judges see the text unchanged inside a fence and are told it is data
(:mod:`prism_review.judge.fence`).

A sentence is *addressed to the judge* when it refers to the assessment situation in one of
these ways (:data:`_ADDRESSED`; matched on a folded view of the text, with format characters such
as zero-width joiners dropped and compatibility forms such as full-width letters folded):

* it overrides the reader's instructions (ignore/disregard/forget … instructions, prompt,
  rubric), or points at them ("previous instructions", "the instructions above", "the rubric you
  were given");
* it gives the reader a role ("you are now …", "stay in character", "let us play", "pretend to
  be");
* it names the review as the object being scored ("rate this review", "the review you are
  grading");
* it asks for marks on every dimension or metric ("the highest possible value on every
  dimension", "10/10 on every dimension"), or states the benchmark's own outputs as values
  ("nCPS = 1.0", "grounding score = 2");
* it addresses the reader's output ("in your output", "into your reply", "output the JSON"),
  or a judge, evaluator or grader in the third person ("the judge should give …", "Evaluator
  note:").

Each of these is about the review's assessment, which a review of a paper does not discuss, so
the rule is stated on what an instruction is; it was checked to flag no sentence of the demo's
reviews or the shared human-labelled review data (``tests/injection/test_addressed.py``).

A line (a paragraph of one line, a list item) at least half of whose sentences, and at least
two, are addressed to the judge is one block and goes whole, so the filler sentences between
the directives ("This note comes from the benchmark administrators.") go with it; elsewhere only
the addressed sentences go.
"""

from __future__ import annotations

import re
import unicodedata

from prism_review.text import sentence_spans

_I = re.IGNORECASE
#: the start of a sentence (the pattern is matched on whole lines and on single sentences)
_START = r"(?:^|(?<=[.!?:;]\s))[ \t]*(?:please\s+|now\s+|so\s+|and\s+)?"
_DIRECTIVE_NOUN = r"(?:instructions?|prompts?|rubrics?|guidelines|directions|system\s+message)"
_SCORE_NOUN = r"(?:values?|scores?|marks?|ratings?|grades?|points)"
#: the alternatives of :data:`_ADDRESSED`, in order
_ALTERNATIVES: tuple[str, ...] = (
    # overriding the reader's instructions, or pointing at them
    rf"{_START}(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{{0,60}}?\b{_DIRECTIVE_NOUN}",
    rf"\byou\s+(?:should|must|will|are\s+to)\s+(?:now\s+)?(?:ignore|disregard|forget)\b"
    rf"[^.!?\n]{{0,60}}?\b{_DIRECTIVE_NOUN}",
    rf"\b{_DIRECTIVE_NOUN}\s+(?:that\s+)?you\s+(?:were|have\s+been|are)\s+(?:given|told|sent|shown)\b",
    # a role for the reader
    r"\byou\s+are\s+now\s+(?:a|an|the|(?-i:[A-Z]))",
    rf"{_START}stay\s+in\s+(?:character|role)\b",
    r"\blet(?:\s+u|')s\s+play\s+a\s+(?:game|role)\b",
    rf"{_START}pretend\s+(?:to\s+be|you\s+are|that\s+you)\b",
    # the review as the object being scored
    r"\b(?:rate|score|grade|mark|rank|evaluate|assess|judge)\s+(?:this|the)\s+review\b",
    r"\b(?:this|the)\s+review\s+(?:that\s+)?you\s+(?:are|were|will\s+be)\b",
    # marks on every dimension, or the benchmark's own outputs stated as values
    rf"\b(?:highest|maximum|max|top|full|perfect)\s+(?:possible\s+)?{_SCORE_NOUN}\s+"
    r"(?:on|for|in|across)\s+(?:every|each|all)\s+(?:dimensions?|metrics?|criteri|aspects?)",
    r"\b\d+\s*/\s*\d+\s+(?:on|for|in|across)\s+(?:every|each|all)\s+(?:dimensions?|metrics?|criteri)",
    r"\b(?:s_depth|r_premise|ncps|critical\s+recall|minor\s+recall|grounding\s+score)\s*[=:]\s*\d",
    # the reader's output, or a judge in the third person
    r"\b(?:in|into)\s+your\s+(?:output|reply|answer|verdict)\b",
    rf"{_START}(?:output|print|return|copy)\s+(?:only\s+)?(?:the|this|these)\s+(?:json|values|scores)\b",
    r"\b(?:judge|evaluator|grader)s?\s+(?:should|must|shall|will|is\s+to|needs?\s+to)\s+"
    r"(?:give|assign|award|rate|score|mark|output)\b[^.!?\n]{0,40}?"
    r"\b(?:every|all|each|maximum|highest|full|this\s+review)\b",
    r"\b(?:judge|evaluator|grader)\s+note\b",
)
_ADDRESSED = re.compile("|".join(_ALTERNATIVES), _I | re.M)
#: A necessary condition for :data:`_ADDRESSED` to match a text, one entry per
#: alternative of the pattern (same order): groups of literal phrases, each group holding a
#: phrase that every match of that alternative contains once the text is lower-cased and its
#: whitespace runs are single spaces. ``re.IGNORECASE`` equates an ASCII letter only with its
#: other ASCII case and the four characters of :data:`_FOLDS_TO_ASCII` (a view holding one
#: skips the gate), and ``str.split`` splits exactly where ``\s`` matches (both
#: use ``Py_UNICODE_ISSPACE``), so a match implies every group's phrase in that form. The
#: substring tests cost ~1/5 of the pattern's search (0.3 vs 1.8 ms on a corpus-bench review),
#: which almost no review matches
#: (``tests/injection/test_addressed_gate.py`` checks the gate alternative by alternative, the
#: case folds, and the spans against the ungated search on real reviews).
_DIRECTIVE_WORDS = ("instruction", "prompt", "rubric", "guidelines", "directions", "system message")
_ON_EVERY = tuple(f"{p} {q}" for p in ("on", "for", "in", "across") for q in ("every", "each", "all"))
_GRADERS = ("judge", "evaluator", "grader")
_GATE: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("ignore", "disregard", "forget", "override", "bypass"), _DIRECTIVE_WORDS),
    (("you should", "you must", "you will", "you are to"), ("ignore", "disregard", "forget"),
     _DIRECTIVE_WORDS),
    (_DIRECTIVE_WORDS, ("you were", "you have been", "you are"), ("given", "told", "sent", "shown")),
    (("you are now",),),
    (("stay in character", "stay in role"),),
    (("let us play a", "let's play a"),),
    (("pretend to be", "pretend you are", "pretend that you"),),
    (tuple(f"{v} {d} review" for v in ("rate", "score", "grade", "mark", "rank", "evaluate",
                                       "assess", "judge") for d in ("this", "the")),),
    (("this review you", "the review you", "review that you"),),
    (("highest", "max", "top", "full", "perfect"), _ON_EVERY,
     ("dimension", "metric", "criteri", "aspect")),
    (("/",), _ON_EVERY, ("dimension", "metric", "criteri")),
    (("s_depth", "r_premise", "ncps", "critical recall", "minor recall", "grounding score"),),
    (("your output", "your reply", "your answer", "your verdict"),),
    (tuple(f"{v} {w}" for v in ("output", "print", "return", "copy") for w in ("only", "the", "this")),
     ("json", "values", "scores")),
    (tuple(f"{j}{s} {m}" for j in _GRADERS for s in ("", "s")
           for m in ("should", "must", "shall", "will", "is to", "need")),
     ("give", "assign", "award", "rate", "score", "mark", "output")),
    (tuple(f"{j} note" for j in _GRADERS),),
)


#: the non-ASCII characters that ``re.IGNORECASE`` equates with an ASCII letter (İ ı ſ and the
#: Kelvin sign; ``tests/injection/test_addressed_gate.py`` checks every code point)
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def _gate_form(view: str) -> str:
    """``view`` lower-cased with its whitespace runs as single spaces (what :data:`_GATE` reads)."""
    return " ".join(view.lower().split())


def _gate_holds(alternative: int, view: str, *, formed: bool = False) -> bool:
    """Whether ``view`` passes the gate of ``_ALTERNATIVES[alternative]`` (``formed``: ``view``
    is already in :func:`_gate_form`)."""
    low = view if formed else _gate_form(view)
    return all(any(w in low for w in group) for group in _GATE[alternative])


def _may_match(view: str) -> bool:
    """False only when :data:`_ADDRESSED` cannot match ``view`` (see :data:`_GATE`)."""
    if not view.isascii() and any(c in view for c in _FOLDS_TO_ASCII):
        return True
    low = _gate_form(view)
    return any(_gate_holds(i, low, formed=True) for i in range(len(_GATE)))


#: line breaks of the folded view (a review's paragraphs and list items)
_LINE = re.compile(r"[^\n\u2028\u2029]+")


#: the characters :func:`_folded` may change (everything else is copied as is)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _folded(text: str) -> tuple[str, list[int]]:
    """The text with format characters (zero-width joiners, bidi marks, tag characters) dropped
    and compatibility forms folded (NFKC), and for each of its characters the original index.

    ASCII runs are copied whole; only the non-ASCII characters are looked at one by one."""
    if text.isascii():
        return text, list(range(len(text)))
    out: list[str] = []
    index: list[int] = []
    pos = 0
    for m in _NON_ASCII.finditer(text):
        i = m.start()
        if i > pos:
            out.append(text[pos:i])
            index.extend(range(pos, i))
        pos = i + 1
        c = m.group()
        if unicodedata.category(c) == "Cf":
            continue
        f = unicodedata.normalize("NFKC", c)
        out.append(f)
        index.extend([i] * len(f))
    if pos < len(text):
        out.append(text[pos:])
        index.extend(range(pos, len(text)))
    return "".join(out), index


def addressed_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` spans of ``text`` addressed to the judge (see the module docstring)."""
    if not text:
        return []
    view, index = _folded(text)
    if not _may_match(view) or not _ADDRESSED.search(view):
        return []
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(view):
        if not _ADDRESSED.search(line.group(0)):
            continue
        sents = [s for s in sentence_spans(line.group(0)) if s.text.strip()]
        hits = [s for s in sents if _ADDRESSED.search(s.text)]
        if len(hits) >= 2 and 2 * len(hits) >= len(sents):
            pieces = [(line.start(), line.end())]
        else:
            pieces = [(line.start() + s.start, line.start() + s.end) for s in hits]
        for a, b in pieces:
            spans.append((index[a], index[b - 1] + 1))
    return spans


__all__ = ["addressed_spans"]

"""Text features of one review comment for the offline constructiveness judge.

Two parts, both deterministic and dependency-light (numpy only at run time):

* a TF-IDF bag of unigrams and bigrams over a stored vocabulary (sublinear tf, smoothed idf,
  L2-normalised), the same transform at training and at run time;
* hand features that encode the rubric: request and suggestion cues (actionability, solution),
  pointers to exact elements (specificity: sections, tables, equations, line numbers, quotes),
  support cues (justification: "because", citations, numbers, examples) and tone cues.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return _TOKEN.findall(text.lower())


def ngrams(text: str) -> list[str]:
    """Unigrams and bigrams of ``text``."""
    t = tokens(text)
    return t + [f"{a} {b}" for a, b in zip(t, t[1:], strict=False)]


def _rx(*pats: str) -> re.Pattern[str]:
    return re.compile("|".join(pats), re.IGNORECASE)


CUES: dict[str, re.Pattern[str]] = {
    # explicit requests and suggestions
    "modal_should": _rx(r"\b(should|must|need(s)? to|have to|ought to)\b"),
    "suggest": _rx(
        r"\b(suggest|recommend|encourage|advise|consider|would (be )?(good|better|helpful|nice|"
        r"interesting|useful)|it (might|may|could) (be )?(help|useful|worth|good|better)|"
        r"(i|we)'?d like to see|please)\b"
    ),
    "imperative": _rx(
        r"(^|[\n.:;]\s*[-*•]?\s*(\d+[.)]\s*)?)(add|include|provide|report|compare|clarify|"
        r"explain|discuss|show|remove|rewrite|fix|cite|define|describe|mention|use|evaluate|"
        r"analy[sz]e|conduct|run|check|correct|revise|elaborate|justify|state|move|reduce|"
        r"change|consider|replace|rephrase|specify)\b"
    ),
    "add_verb": _rx(
        r"\b(add(ing)?|includ(e|ing)|provid(e|ing)|report(ing)?|compar(e|ing|ison)|"
        r"clarif(y|ying|ication)|explain(ing)?|discuss(ing)?|ablat(e|ion)|experiment(s)? (on|with))\b"
    ),
    "question": _rx(r"\?"),
    "wh_question": _rx(r"\b(why|how|what|which|whether|is it|are the|does|do the|can the)\b"),
    "missing": _rx(
        r"\b(missing|lack(s|ing)?|absent|not (clear|clearly|explained|described|discussed|"
        r"provided|reported|mentioned|specified|justified)|unclear|no (discussion|comparison|"
        r"analysis|details|explanation|evaluation)|omit(s|ted)?|insufficient|limited)\b"
    ),
    "vague": _rx(r"\b(some|several|various|many|overall|generally|somewhat|a bit|in general)\b"),
    # pointers to exact elements
    "ref_element": _rx(
        r"\b(sec(tion)?s?|tab(le)?s?|fig(ure)?s?|eq(uation)?s?|alg(orithm)?s?|appendix|"
        r"theorem|lemma|proposition|corollary|def(inition)?|line|lines|page|p\.|paragraph|"
        r"footnote|step)\.?\s*[~(]?\s*\(?[0-9IVX]"
    ),
    "ref_word": _rx(
        r"\b(section|table|figure|fig|equation|eq|appendix|theorem|lemma|algorithm|line|page|"
        r"paragraph|footnote|abstract|introduction|conclusion|related work|experiments?)\b"
    ),
    "quote": _rx(r"[\"“”‘’']\w[^\"“”]{3,}[\"“”‘’']"),
    "math": _rx(r"\$[^$]+\$|\\[a-z]+|[=<>]\s*\d"),
    # case-sensitive: CamelCase names and acronyms (BERT, ResNet)
    "named_method": re.compile(r"\b[A-Z][a-z]*[A-Z][A-Za-z]*\b|\b[A-Z]{2,}\b"),
    # support
    "because": _rx(
        r"\b(because|since|as (it|this|the|they)|due to|given that|therefore|thus|hence|"
        r"which (means|implies|makes)|so that|otherwise|as a result|this is why|implies)\b"
    ),
    "example": _rx(r"\b(e\.g\.|for example|for instance|such as|i\.e\.|namely|like)\b"),
    "citation": _rx(
        r"\bet al\b|\[\d+(,\s*\d+)*\]|\(\s*[A-Z][a-z]+[^()]*\d{4}[a-z]?\s*\)|\b(19|20)\d{2}\b|"
        r"arxiv|https?://|doi"
    ),
    "number": _rx(r"\b\d+(\.\d+)?%?"),
    "evidence_word": _rx(
        r"\b(shows?|shown|demonstrat\w+|results?|evidence|observ\w+|reported|according to|"
        r"known|well-known|prior work|previous work|literature|paper[s]? (by|from))\b"
    ),
    "hedge_opinion": _rx(
        r"\b(i think|i feel|i believe|seems?|in my opinion|not convinced|unsure)\b"
    ),
    # tone
    "hostile": _rx(
        r"\b(nonsense|ridiculous|absurd|useless|worthless|sloppy|careless|lazy|stupid|"
        r"trivial|garbage|waste of|embarrassing|unacceptable|laughable|pointless|terrible|"
        r"awful|clearly (wrong|do not|don't)|obviously (wrong|not))\b"
    ),
    "polite": _rx(
        r"\b(please|thank|appreciate|nice|interesting|encourage|commend|well[- ]written|"
        r"would (be )?(good|great|helpful|nice|interesting)|i (would|'d) (suggest|recommend))\b"
    ),
    "positive": _rx(
        r"\b(strong|novel|clear(ly written)?|well|good|great|impressive|interesting|solid|"
        r"convincing|thorough|significant contribution)\b"
    ),
}

HAND_NAMES: list[str] = [f"cue_{k}" for k in CUES] + [
    "log_len",
    "n_sentences",
    "starts_bullet",
    "has_digit_ref",
]


def _lower_twin(p: re.Pattern[str]) -> re.Pattern[str] | None:
    """``p`` without ``re.IGNORECASE``, to run on lower-cased ASCII text, when that finds the
    same matches: ``p`` ignores case and has no upper-case character (no ``[A-Z]``, ``IVX``,
    ``\\S``...), so each element accepts a character iff it accepts its lower case. (Python's
    case-insensitive matching is ~2x slower than matching the lower-cased text.)"""
    if not p.flags & re.IGNORECASE or any(c.isupper() for c in p.pattern):
        return None
    return re.compile(p.pattern, p.flags & ~re.IGNORECASE)


#: (pattern, its lower-case twin or None) per cue, in :data:`CUES` order
_CUE_PAIRS = [(p, _lower_twin(p)) for p in CUES.values()]


def cue_counts(text: str) -> list[int]:
    """How many times each cue of :data:`CUES` occurs in ``text`` (non-overlapping, in order).

    On ASCII text (where ``str.lower`` keeps every index and re's case folding equates only the
    ASCII cases), the cues that allow it run case-sensitively on the lower-cased text."""
    if not text.isascii():
        return [len(p.findall(text)) for p in CUES.values()]
    low = text.lower()
    return [len(p.findall(text)) if twin is None else len(twin.findall(low))
            for p, twin in _CUE_PAIRS]


def hand_features(text: str) -> list[float]:
    """Rubric cue features of one comment (counts are log-damped)."""
    out = [math.log1p(n) for n in cue_counts(text)]
    n_words = len(text.split())
    out.append(math.log1p(n_words))
    out.append(math.log1p(len(re.findall(r"[.!?](\s|$)", text))))
    out.append(1.0 if re.match(r"\s*([-*•]|\d+[.)]|\(\w\))", text) else 0.0)
    out.append(1.0 if CUES["ref_element"].search(text) else 0.0)
    return out


class Tfidf:
    """A fixed-vocabulary TF-IDF transform (sublinear tf, smoothed idf, L2 norm)."""

    def __init__(self, vocab: dict[str, int], idf: Sequence[float]) -> None:
        self.vocab = vocab
        self.idf = np.asarray(idf, dtype=float)

    @classmethod
    def fit(cls, texts: Sequence[str], min_df: int = 2, max_features: int = 6000) -> Tfidf:
        """Learn the vocabulary and idf from ``texts``."""
        df: Counter[str] = Counter()
        for t in texts:
            df.update(set(ngrams(t)))
        kept = sorted((g for g, c in df.items() if c >= min_df), key=lambda g: (-df[g], g))
        kept = sorted(kept[:max_features])
        n = len(texts)
        vocab = {g: i for i, g in enumerate(kept)}
        idf = [math.log((1 + n) / (1 + df[g])) + 1 for g in kept]
        return cls(vocab, idf)

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """Dense (n_texts × vocab) TF-IDF matrix."""
        m = np.zeros((len(texts), len(self.vocab)))
        for r, t in enumerate(texts):
            for g, c in Counter(ngrams(t)).items():
                j = self.vocab.get(g)
                if j is not None:
                    m[r, j] = (1 + math.log(c)) * self.idf[j]
            norm = np.linalg.norm(m[r])
            if norm > 0:
                m[r] /= norm
        return m


def hand_matrix(texts: Sequence[str]) -> np.ndarray:
    """:func:`hand_features` of ``texts``, one row each (no texts: zero rows of full width)."""
    if not texts:
        return np.zeros((0, len(hand_features(""))))
    return np.asarray([hand_features(t) for t in texts], dtype=float).reshape(len(texts), -1)


def density_matrix(hand: np.ndarray) -> np.ndarray:
    """Length-controlled cues, derived from a :func:`hand_matrix` (no second regex pass): each
    cue's rate per 10 words and its presence (0/1). A long comment that repeats no pointer or
    reason gets no more of these than a short one, so the rubric scorers that use them can tell
    support from sheer length."""
    k = len(CUES)
    counts = np.expm1(hand[:, :k])
    words = np.maximum(np.expm1(hand[:, k]), 1.0)
    return np.hstack([counts / words[:, None] * 10.0, (counts > 0.5).astype(float)])


def rubric_matrix(texts: Sequence[str], tfidf: Tfidf, hand: np.ndarray | None = None) -> np.ndarray:
    """[TF-IDF | hand features | :func:`density_matrix`]: the rubric scorers' input."""
    h = hand_matrix(texts) if hand is None else hand
    return np.hstack([tfidf.transform(texts), h, density_matrix(h)])


def design_matrix(
    texts: Sequence[str], tfidf: Tfidf, hand: np.ndarray | None = None
) -> np.ndarray:
    """[TF-IDF | hand features] for ``texts``; ``hand`` is their :func:`hand_matrix` when the
    caller already has it (the rubric and comment-type models share it)."""
    return np.hstack([tfidf.transform(texts), hand_matrix(texts) if hand is None else hand])

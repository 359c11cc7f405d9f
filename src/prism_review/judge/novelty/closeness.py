"""How close a candidate comes to what a novelty claim is about (the offline verdict's evidence).

For one claim and one candidate the offline judge asks: does this prior work anticipate the part
of the paper the claim talks about? It answers with a **relative closeness**

    δ = cos(S, candidate) − cos(S, the paper itself, in the candidate's form)

where the vectors are all-MiniLM-L6-v2 sentence embeddings (:mod:`.embedder`) and

* ``S``, the claim's subject, is the claim sentence when it names something of the paper (at
  least one content word, besides novelty and review vocabulary, that the paper's title or
  abstract also uses: "the recitation step is not new"), else the paper's title and abstract
  (a claim such as "the novelty is limited" or "its strengths lie in its novel approach" is
  about the paper as a whole);
* "the candidate's form" is the paper's title alone for a title-only candidate (a
  bibliography entry of the local index) and its title and abstract for a candidate with an
  abstract, so like is compared with like: a title is never held to an abstract's scale.

δ = 0 means the candidate is as close to the claim's subject as the paper under review is;
prior work that close anticipates it. The reference point comes from the paper itself, not from
constants fitted to data (no verdict labels exist offline); the bands of :mod:`.verdict` are
fixed on δ. A difference, not a ratio: a claim only loosely about the paper has a small
self-similarity, and a ratio over it would blow up.

A pair is **uninformed** (None) when the candidate has no text to embed, or the subject has no
positive similarity with the paper it is supposed to be about (nothing to compare against).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prism_review.judge.novelty.embedder import load_embedder
from prism_review.judge.novelty.stopwords import english_stop_words

#: words that say how new or good something is, or name the paper, not what it is about
EVALUATIVE = frozenset(["novel", "novelty", "new", "newness", "original", "originality", "innovative", "innovation", "incremental", "marginal", "limited", "limit", "limits", "contribution", "contributions", "contribute", "contributes", "idea", "ideas", "approach", "approaches", "method", "methods", "methodology", "work", "works", "paper", "papers", "submission", "manuscript", "authors", "author", "propose", "proposes", "proposed", "proposal", "present", "presents", "presented", "introduce", "introduces", "introduced", "interesting", "nice", "good", "great", "clever", "elegant", "neat", "fresh", "significant", "significance", "main", "key", "core", "major", "minor", "overall", "technical", "technically", "simple", "simply", "straightforward", "trivial", "extension", "extensions", "combination", "combines", "combine", "combining", "existing", "prior", "previous", "previously", "literature", "related", "similar", "similarity", "same", "already", "known", "well", "studied", "explored", "done", "shown", "demonstrated", "first", "lack", "lacks", "lacking", "little", "somewhat", "quite", "very", "rather", "fairly", "really", "particularly", "especially", "entirely", "truly", "genuinely", "highly", "clearly", "obviously", "definitely", "certainly", "seems", "seem", "appears", "appear", "think", "believe", "feel", "find", "view", "opinion", "however", "unfortunately", "although", "overall", "strong", "weak", "strength", "strengths", "weakness", "weaknesses", "concern", "concerns", "point", "points", "aspect", "aspects", "part", "parts", "degree", "level", "lot", "bit", "thing", "things", "way", "ways", "sense", "respect", "research", "study", "studies", "analysis", "analyses", "quality", "clarity", "clear", "writing", "written", "presentation", "experiment", "experiments", "experimental", "empirical", "empirically", "evaluation", "evaluations", "result", "results", "finding", "findings", "insight", "insights", "improvement", "improvements", "improve", "improves", "performance", "comprehensive", "rigorous", "extensive", "thorough", "solid", "valuable", "useful", "promising", "potential", "drawback", "drawbacks", "area", "areas", "exploration", "further", "future", "field", "community", "addition"])
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def subject_terms(claim: str, paper: str | None = None) -> list[str]:
    """The claim's content words: tokens of ≥ 2 characters that are neither English stop words
    nor novelty/evaluation vocabulary (lower-cased, in order); with ``paper``, only those the
    paper's text also uses (a plural ``s`` aside), i.e. what the claim names *of the paper*."""
    vocab = {_stem(t.lower()) for t in _TOKEN.findall(paper)} if paper is not None else None
    out = []
    stop = english_stop_words()
    for t in _TOKEN.findall(claim):
        low = t.lower().strip("-")
        if len(low) < 2 or low in stop or low in EVALUATIVE:
            continue
        if vocab is None or _stem(low) in vocab:
            out.append(low)
    return out


@dataclass(frozen=True)
class Closeness:
    """One (claim, candidate) pair's evidence."""

    #: cos(S, candidate) − cos(S, paper in the candidate's form)
    delta: float
    #: cos(S, candidate)
    cosine: float
    #: cos(S, paper in the candidate's form)
    self_cosine: float
    #: the subject is the claim ("claim") or the paper ("paper")
    subject: str
    #: the candidate has an abstract
    has_abstract: bool


@dataclass(frozen=True)
class CandidateParts:
    """A candidate split into what is embedded: its title and its abstract."""

    title: str
    abstract: str

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.abstract}".strip() if self.abstract else self.title


_FIELD = re.compile(r"^(Title|Abstract|Introduction):\s*", re.M)


def split_candidate(text: str) -> CandidateParts:
    """Title and abstract of a candidate rendered by ``related_work_text`` (``Title: …``,
    ``Abstract: …``); text without those labels counts as a title."""
    parts: dict[str, str] = {}
    matches = list(_FIELD.finditer(text))
    if not matches:
        return CandidateParts(title=" ".join(text.split()), abstract="")
    for m, nxt in zip(matches, [*matches[1:], None], strict=True):
        body = text[m.end() : nxt.start() if nxt else len(text)]
        parts[m.group(1).lower()] = " ".join(body.split())
    return CandidateParts(title=parts.get("title", ""), abstract=parts.get("abstract", ""))


def pair_closeness(
    claim: str, paper_title: str, paper_abstract: str, candidates: Sequence[str]
) -> list[Closeness | None]:
    """:class:`Closeness` of each candidate text to ``claim`` (None: uninformed; module doc)."""
    parts = [split_candidate(t) for t in candidates]
    paper_full = f"{paper_title}\n{paper_abstract}".strip()
    own = bool(subject_terms(claim, paper_full))
    subject = claim if own else paper_full
    texts = [subject, paper_title, paper_full, *(p.text for p in parts)]
    vec = load_embedder().vectors(texts)
    s, v_title, v_full, v_cands = vec[0], vec[1], vec[2], vec[3:]
    if not np.any(s):
        return [None] * len(parts)
    self_title = float(s @ v_title) if paper_title.strip() else 0.0
    self_full = float(s @ v_full)
    out: list[Closeness | None] = []
    for p, v in zip(parts, v_cands, strict=True):
        anchor = self_full if p.abstract else self_title
        if not np.any(v) or anchor <= 0.0:
            out.append(None)
            continue
        cos = float(s @ v)
        out.append(Closeness(delta=cos - anchor, cosine=cos, self_cosine=anchor,
                             subject="claim" if own else "paper", has_abstract=bool(p.abstract)))
    return out

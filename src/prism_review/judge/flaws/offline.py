"""The offline judge of the flaw steps: no network, deterministic.

* consolidate — split each review into criticism items (:mod:`.splitting`), give each a
  taxonomy topic (:mod:`.topics`), and cluster them across reviewers by the content-word overlap
  of their item texts (:mod:`.clustering`: TF-IDF fitted on the paper's pooled criticisms,
  average linkage, one bar tuned on a hand-labelled gold set, never two points of one reviewer
  in one flaw). Each cluster is a micro-flaw whose summary is its first quote, with every member
  reviewer's quote verbatim.
* validate — a criticism quoting a formula of the paper is judged by :mod:`.edits` (does the
  paper restate it with another number/operator → valid Critical, with renamed symbols → valid
  Minor, nowhere → invalid); any other criticism by the checkable-claims test of
  :mod:`.validity` against the paper excerpt, with the ontology's topic → severity rule.
* map — each bank issue is located in the review by the reviewer's own Step 1 quote (exact,
  then fuzzy) or, failing that, by fuzzy similarity of the issue summary to a review sentence.
"""

from __future__ import annotations

from rapidfuzz import fuzz, utils

from prism_review.judge.flaws.clustering import ClusterParams, cluster
from prism_review.judge.flaws.edits import edit_verdict
from prism_review.judge.flaws.models import (
    ConsolidateInput,
    ConsolidateOutput,
    FlawEvaluation,
    MapInput,
    MapOutput,
    Mention,
    MicroFlaw,
    ValidateInput,
    ValidateOutput,
)
from prism_review.judge.flaws.splitting import (
    Criticism,
    ReviewSection,
    criticisms,
    review_sections,
)
from prism_review.judge.flaws.taxonomy import ontology_severity
from prism_review.judge.flaws.topics import topic_for
from prism_review.judge.flaws.validity import PaperIndex, ValidityParams, judge
from prism_review.metrics.cps import find_position_exact, find_position_fuzzy
from prism_review.text import sentence_spans


def consolidate(inp: ConsolidateInput, params: ClusterParams | None = None) -> ConsolidateOutput:
    """Offline Step 1: split, give topics, cluster across reviewers (:mod:`.clustering`)."""
    p = params or ClusterParams()
    items: list[Criticism] = []
    for r in inp.reviews:
        items.extend(criticisms(r.reviewer_id, r.text, p.criticism_threshold))
    topics = [topic_for(c.quote, c.item) for c in items]
    groups = cluster([c.reviewer_id for c in items], [c.item for c in items], topics, p)
    flaws = []
    for n, members in enumerate(groups, start=1):
        args: dict[str, str] = {}
        for j in members:
            args.setdefault(items[j].reviewer_id, items[j].quote)
        first = items[members[0]]
        flaws.append(
            MicroFlaw(
                flaw_id=f"F{n:02d}",
                macro_topic=topics[members[0]],
                core_summary=first.quote,
                raw_arguments=args,
            )
        )
    return ConsolidateOutput(micro_flaws=flaws)


def validate(inp: ValidateInput, params: ValidityParams | None = None) -> ValidateOutput:
    """Offline Step 2."""
    p = params or ValidityParams()
    paper = PaperIndex(inp.paper_excerpt)
    evals = {}
    for f in inp.micro_flaws:
        quotes = [q for q in f.raw_arguments.values() if q]
        edit = edit_verdict(quotes, inp.paper_excerpt, p.edit_similarity) if p.check_edits else None
        if edit is not None:
            evals[f.flaw_id] = FlawEvaluation(is_valid=edit[0], severity=edit[1])
            continue
        text = " ".join([f.core_summary, *quotes])
        ok, _ = judge(text, paper, p)
        evals[f.flaw_id] = FlawEvaluation(
            is_valid=ok, severity=ontology_severity(f.macro_topic) if ok else "None"
        )
    return ValidateOutput(evaluations=evals)


def _section_at(sections: list[ReviewSection], pos: int) -> str:
    name = "Weaknesses"
    for sec in sections:
        if sec.start <= pos and sec.name:
            name = sec.name
    return name


def map_review(inp: MapInput, min_ratio: float = 80.0) -> MapOutput:
    """Offline Step 3 (mentions in review order)."""
    text = inp.review_text
    sentences = sentence_spans(text) if text else []
    sections = review_sections(text)
    found: list[tuple[int, Mention]] = []
    for issue in inp.issues:
        hint = inp.hints.get(issue.issue_id, "").strip()
        pos, anchor = None, ""
        if hint:
            pos = find_position_exact(hint, text)
            if pos is None:
                pos = find_position_fuzzy(hint, text)
            anchor = hint
        if pos is None and issue.canonical_summary:
            best, best_r = None, 0.0
            for sp in sentences:
                r = fuzz.token_set_ratio(
                    issue.canonical_summary, sp.text, processor=utils.default_process
                )
                if r > best_r:
                    best, best_r = sp, r
            if best is not None and best_r >= min_ratio:
                pos, anchor = best.start, best.text
        if pos is None:
            continue
        words = anchor.split()
        found.append(
            (
                pos,
                Mention(
                    issue_id=issue.issue_id,
                    section_name=_section_at(sections, pos),
                    anchor_quote=" ".join(words[:20]),
                    content=issue.canonical_summary,
                ),
            )
        )
    found.sort(key=lambda t: t[0])
    return MapOutput(mentions=[m for _, m in found])

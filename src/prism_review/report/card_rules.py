"""Which agreement figure vouches for which column (shared by the card recorder and the notes).

Each :class:`Rule` ties one figure of a ``prism agreement`` dataset's result to the Table-1 or
comparison columns it classes, with the trivial baseline it must beat
(:mod:`prism_review.report.card_record` applies them); :data:`NO_TASK` says why a column has no
agreement task at all.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One agreement figure and the columns it classes."""

    dataset: str
    key: str  # the figure's key in the dataset's result
    columns: tuple[tuple[str, str, str], ...]  # (dimension, metric, label)
    what: str  # how to read the figure, for the card's text
    baseline: str | None = None  # key of the baseline figure, or "always_valid" / "zero"
    n_key: str | None = None
    level_of: str | None = None  # key of the labelled level (a level figure)


FLAWS_COLUMNS = (
    ("flaws", "critical_recall", "Critical recall"), ("flaws", "minor_recall", "Minor recall"),
    ("flaws", "ncps", "nCPS"), ("flaws", "hallucination_rate", "Hallucination rate"),
    ("flaws", "critical_recall_cw", "Critical recall (CW)"), ("flaws", "minor_recall_cw", "Minor recall (CW)"),
    ("flaws", "cps_norm", "CPS_norm"), ("flaws", "no_valid_flaw", "No valid flaw (share)"),
)
RULES: tuple[Rule, ...] = (
    Rule("revutil", "revutil.actionability.spearman", (("constructiveness", "d1", "D1 Act."),),
         "Spearman vs RevUtil actionability", "revutil.actionability.word_count_spearman", "n.actionability"),
    Rule("revutil", "revutil.grounding_specificity.spearman", (("constructiveness", "d2", "D2 Spec."),),
         "Spearman vs RevUtil grounding_specificity", "revutil.grounding_specificity.word_count_spearman",
         "n.grounding_specificity"),
    Rule("revutil", "revutil.verifiability.spearman", (("constructiveness", "d3", "D3 Just."),),
         "Spearman vs RevUtil verifiability", "revutil.verifiability.word_count_spearman", "n.verifiability"),
    Rule("revutil", "revutil.solution.spearman_vs_actionability", (("constructiveness", "d4", "D4 Sol."),),
         "Spearman of D4 vs RevUtil actionability (a proxy)", "revutil.actionability.word_count_spearman",
         "n.actionability"),
    Rule("revutil", "revutil.helpfulness.spearman_clc", (("constructiveness", "mcs", "MCS"),),
         "Spearman of the comment's CLC vs RevUtil helpfulness", "zero", "n.helpfulness"),
    Rule("substanreview", "substanreview.r_premise.predicted", (("depth", "r_premise", "R_premise"),),
         "mean R_premise predicted vs labelled on SubstanReview", None, "n.reviews",
         level_of="substanreview.r_premise.gold"),
    Rule("disapere-novelty", "disapere.novelty.has_claim.kappa", (("novelty", "has_claim", "Claim rate"),),
         "per-review kappa of 'has a novelty claim' vs DISAPERE labels", "zero", "n.disapere.novelty.claims"),
    Rule("revutil-llm-reviews", "revutil_llm_reviews.validity.accuracy", FLAWS_COLUMNS,
         "flaw validity accuracy vs RevUtil reliability labels", "always_valid", "n.revutil_llm_reviews.scored"),
)

#: columns no agreement task can measure (no human labels of that construct exist in the shared data)
NO_TASK: dict[tuple[str, str], str] = {
    ("depth", "doa"): "DoA's S_depth half has no whole-review human label; its parts are R_premise and S_depth",
    ("depth", "s_depth"): "no agreement dataset labels grounding on whole reviews",
    ("novelty", "ns"): "no labelled claim-vs-prior-work verdicts exist",
    ("novelty", "sr"): "no labelled claim-vs-prior-work verdicts exist",
    ("novelty", "ssr"): "no labelled claim-vs-prior-work verdicts exist",
}


def rules_for(dimension: str, metric: str) -> list[Rule]:
    return [r for r in RULES if any(c[0] == dimension and c[1] == metric for c in r.columns)]

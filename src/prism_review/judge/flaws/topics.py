"""Taxonomy topic of a criticism for the offline judge: keyword rules, then the aspect model.

Rules are tried in order (first match wins) on the criticism's item text; when none fires the
DISAPERE-trained aspect model picks a topic through :data:`ASPECT_LABELS`.
"""

from __future__ import annotations

import re

from prism_review.judge.flaws.criticism import aspect
from prism_review.judge.flaws.taxonomy import label

_RULES: list[tuple[str, tuple[int, str]]] = [
    (r"\btypos?\b|grammar|spelling|typographical|misspell", (2, "Grammar & Typos")),
    (
        r"\b(figures?|fig\.|tables?|plots?)\b.{0,50}\b(unclear|hard to read|too small|quality"
        r"|confusing|illegible|labels?|resolution|caption|messy|legend)",
        (2, "Poor Figures/Tables Quality"),
    ),
    (
        r"notation|undefined symbol|symbols? (is|are) not defined|subscript|superscript",
        (2, "Unclear Math/ Notations"),
    ),
    (
        r"\bcode\b|github|open[- ]?source|publicly (available|release)|\breleased?\b",
        (7, "Missing Code/Data Repository"),
    ),
    (
        r"hyper-?parameters?|implementation details?|training details?|learning rate|batch size"
        r"|details (on|of|about) (the )?(training|implementation|setup)",
        (7, "Insufficient Implementation Details"),
    ),
    (r"reproduc|replicat", (7, "General Reproducibility Concerns")),
    (
        r"\bethic|societal|broader impact|privacy|fairness|misuse",
        (3, "Missing Broader Impact/Ethical Concerns"),
    ),
    (
        r"limitations? (section|discussion|are not|is not|of the (method|approach))|discuss(ion of)? "
        r"(the )?limitations",
        (3, "Lack of Discussion on Limitations"),
    ),
    (
        r"scalab|computational (cost|complexity|overhead)|\bcomplexity\b|overhead|run-?time|memory"
        r"|efficien|expensive",
        (3, "Scalability & Complexity Concerns"),
    ),
    (
        r"incremental|marginal (improvement|contribution|novelty)",
        (1, "Incremental Contribution Only"),
    ),
    (r"novel|novelty|original", (1, "Limited Novelty")),
    (r"recent (work|papers|methods|approaches)|concurrent", (5, "Missing Recent/Concurrent Works")),
    (r"\bbaselines?\b|state[- ]of[- ]the[- ]art|\bsota\b", (4, "Missing/Weak Baselines")),
    (
        r"(compar\w+ (with|to|against)) (prior|previous|existing|related|other) (work|methods|approaches)"
        r"|prior work|previous work",
        (5, "Missing Comparisons with Prior Work"),
    ),
    (
        r"\bcit(e|ed|ation|ations)\b|\breferences?\b|related work|literature",
        (5, "Missing Relevant Citations"),
    ),
    (r"\bmetrics?\b|evaluation measure", (4, "Questionable Evaluation Metrics")),
    (
        r"\bdatasets?\b|\bbenchmarks?\b|data sets?|synthetic data|small-scale",
        (4, "Limited/Biased Datasets"),
    ),
    (r"assum", (6, "Strong/Unrealistic Assumptions")),
    (
        r"\bproofs?\b|theorem|lemma|\bbounds?\b|theoretical|convergence|guarantee",
        (6, "Weak Theoretical Justification/Proofs"),
    ),
    (
        r"ablation|experiment|empirical|statistical|significance test|variance|seeds|error bars"
        r"|\bresults?\b|evaluat",
        (4, "Insufficient Experimental Validation"),
    ),
    (
        r"generali[sz]|applicab|real[- ]world|other domains|practical",
        (3, "General Applicability Issues"),
    ),
    (r"significance|impact|motivation", (1, "Lack of Significance/Impact")),
    (r"intuition|justif|\bwhy\b", (6, "Lack of Intuition/Justification")),
    (
        r"unclear|clarity|hard to follow|confusing|writing|clarify|explain|presentation|organi[sz]",
        (2, "General writing & Clarity issues"),
    ),
    (r"incorrect|wrong|\berrors?\b|not sound|problematic|flaw", (6, "Methodological Flaws")),
]
_COMPILED = [(re.compile(p, re.I), t) for p, t in _RULES]

#: DISAPERE aspect → taxonomy label, used when no rule fires
ASPECT_LABELS = {
    "asp_substance": label(4, "Insufficient Experimental Validation"),
    "asp_clarity": label(2, "General writing & Clarity issues"),
    "asp_soundness-correctness": label(6, "Methodological Flaws"),
    "asp_originality": label(1, "Limited Novelty"),
    "asp_motivation-impact": label(1, "Lack of Significance/Impact"),
    "asp_meaningful-comparison": label(5, "Missing Comparisons with Prior Work"),
    "asp_replicability": label(7, "Insufficient Implementation Details"),
}


def rule_topic(text: str) -> str | None:
    """The label of the first keyword rule that fires on ``text``, or None."""
    for rx, (t, micro) in _COMPILED:
        if rx.search(text):
            return label(t, micro)
    return None


def topic_for(text: str, context: str = "") -> str:
    """The taxonomy label of one criticism: rules on the sentence, then on its context (the
    whole item), then the aspect model on the sentence."""
    found = rule_topic(text) or (rule_topic(context) if context else None)
    return found or ASPECT_LABELS.get(aspect(text), label(6, "Other Methodology Issues"))

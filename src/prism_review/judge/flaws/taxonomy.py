"""The fixed flaw taxonomy (7 macro topics × 4–5 micro types) and the severity ontology.

Spec §6.2–6.3. A flaw's ``macro_topic`` is written ``"<n>. <Topic> - <Type>"``. The ontology
says which types are Critical by nature (they need new experiments or analyses, or could
change the main claims) and which are Minor (textual or editorial fixes); the offline judge
uses it as its severity rule, and the LLM prompt states it.
"""

from __future__ import annotations

import re
from typing import Literal

from rapidfuzz import fuzz, process, utils

#: topic number → (topic name, micro types in order)
TAXONOMY: dict[int, tuple[str, tuple[str, ...]]] = {
    1: (
        "Novelty & Contribution",
        (
            "Limited Novelty",
            "Incremental Contribution Only",
            "Lack of Significance/Impact",
            "Other Novelty Issues",
        ),
    ),
    2: (
        "Clarity & Presentation",
        (
            "General writing & Clarity issues",
            "Unclear Math/ Notations",
            "Poor Figures/Tables Quality",
            "Grammar & Typos",
            "Other Presentation Issues",
        ),
    ),
    3: (
        "Applicability, Scalability & Limitations",
        (
            "General Applicability Issues",
            "Scalability & Complexity Concerns",
            "Lack of Discussion on Limitations",
            "Missing Broader Impact/Ethical Concerns",
            "Other Limitation Issues",
        ),
    ),
    4: (
        "Experimental Design & Evaluation",
        (
            "Missing/Weak Baselines",
            "Insufficient Experimental Validation",
            "Questionable Evaluation Metrics",
            "Limited/Biased Datasets",
            "Other Evaluation Issues",
        ),
    ),
    5: (
        "Related work & Citations",
        (
            "Missing Comparisons with Prior Work",
            "Missing Relevant Citations",
            "Missing Recent/Concurrent Works",
            "Other Citation Issues",
        ),
    ),
    6: (
        "Methodology & Theoretical Soundness",
        (
            "Weak Theoretical Justification/Proofs",
            "Methodological Flaws",
            "Strong/Unrealistic Assumptions",
            "Lack of Intuition/Justification",
            "Other Methodology Issues",
        ),
    ),
    7: (
        "Reproducibility & Open Science",
        (
            "General Reproducibility Concerns",
            "Insufficient Implementation Details",
            "Missing Code/Data Repository",
            "Other Reproducibility Issues",
        ),
    ),
}

#: micro types whose flaws are Minor by the ontology; every other type is Critical
MINOR_TYPES: frozenset[str] = frozenset(
    {
        *TAXONOMY[2][1],  # clarity and presentation
        "Lack of Discussion on Limitations",
        "Missing Broader Impact/Ethical Concerns",
        "Other Limitation Issues",
        "Missing Relevant Citations",
        "Missing Recent/Concurrent Works",
        "Other Citation Issues",
        "Insufficient Implementation Details",
        "Missing Code/Data Repository",
        "Other Reproducibility Issues",
    }
)


def label(topic: int, micro: str) -> str:
    """The canonical ``"<n>. <Topic> - <Type>"`` label."""
    return f"{topic}. {TAXONOMY[topic][0]} - {micro}"


ALL_LABELS: tuple[str, ...] = tuple(label(t, m) for t, (_, ms) in TAXONOMY.items() for m in ms)
OTHER_LABEL = label(6, "Other Methodology Issues")


def canonical_label(text: str | None) -> str:
    """The closest canonical label to ``text`` (case/spacing tolerant); unknown → 'Other' type.

    A leading topic number picks the topic; within it the micro type is fuzzy-matched. Without a
    usable number the whole label is fuzzy-matched against all labels.
    """
    raw = (text or "").strip()
    if raw in ALL_LABELS:
        return raw
    if not raw:
        return OTHER_LABEL
    m = re.match(r"^\s*(\d)\s*[.)]?\s*(.*)$", raw)
    if m and int(m.group(1)) in TAXONOMY:
        topic = int(m.group(1))
        rest = m.group(2).lstrip("-–: ")
        micro_part = rest.split(" - ", 1)[1] if " - " in rest else rest
        if micro_part.strip().lower() == name_of(topic).lower():
            return label(topic, TAXONOMY[topic][1][-1])
        types = TAXONOMY[topic][1]
        best = process.extractOne(
            micro_part, types, scorer=fuzz.token_set_ratio, processor=utils.default_process
        )
        if best and best[1] >= 60:
            return label(topic, best[0])
        return label(topic, types[-1])
    best = process.extractOne(
        raw, ALL_LABELS, scorer=fuzz.token_set_ratio, processor=utils.default_process
    )
    return best[0] if best and best[1] >= 60 else OTHER_LABEL


def name_of(topic: int) -> str:
    """The name of a topic number."""
    return TAXONOMY[topic][0]


def micro_type(macro_topic: str) -> str:
    """The micro type of a canonical label."""
    return canonical_label(macro_topic).split(" - ", 1)[1]


def ontology_severity(macro_topic: str) -> Literal["Critical", "Minor"]:
    """``Critical`` or ``Minor`` for a flaw of this type, by the ontology."""
    return "Minor" if micro_type(macro_topic) in MINOR_TYPES else "Critical"


def taxonomy_text() -> str:
    """The taxonomy as numbered prompt text."""
    lines = []
    for t, (name, types) in TAXONOMY.items():
        lines.append(f"{t}. {name}: " + "; ".join(types))
    return "\n".join(lines)

"""Human-labelled training and evaluation data for the offline DoA judge and its agreement checks.

Label mappings follow ``shared/data/README.md``:

* DISAPERE review actions: evaluative and request → Claim, fact → Premise; structuring,
  social, other and unlabelled fragments are not argumentative units.
* DISAPERE aspects: originality, motivation-impact, meaningful-comparison → Contribution;
  soundness-correctness, substance, replicability → Soundness; clarity → Clarity; else Other.
* SubstanReview: a sentence takes the label of the spans covering ≥ 50% of its non-space
  characters (claim and major_claim → claim; evidence → evidence), else none.
* RevUtil grounding_specificity (1–5 majority) → grounding {1,2}→0, {3,4}→1, 5→2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prism_review.data.jsonl import read_jsonl
from prism_review.text import sentence_spans

ROLE_OF_ACTION = {"arg_evaluative": "Claim", "arg_request": "Claim", "arg_fact": "Premise"}
ARGUMENTATIVE_ACTIONS = frozenset(ROLE_OF_ACTION)
ASPECT3 = ("Soundness", "Clarity", "Contribution")
ASPECT_OF_DISAPERE = {
    "asp_originality": "Contribution",
    "asp_motivation-impact": "Contribution",
    "asp_meaningful-comparison": "Contribution",
    "asp_soundness-correctness": "Soundness",
    "asp_substance": "Soundness",
    "asp_replicability": "Soundness",
    "asp_clarity": "Clarity",
}
SUBSTAN_LABELS = ("claim", "evidence", "none")


@dataclass
class LabelledReview:
    """One review as gold units: texts in order with per-unit gold labels."""

    review_id: str
    texts: list[str]
    labels: list[dict[str, Any]]
    full_text: str = ""


def disapere_aspect(aspect: str) -> str:
    """PRISM aspect of a DISAPERE aspect label (Other when unmapped)."""
    return ASPECT_OF_DISAPERE.get(aspect, "Other")


def load_disapere(path: Path, limit: int | None = None) -> list[LabelledReview]:
    """DISAPERE reviews; each label has ``action``, ``role`` (or None), ``aspect``."""
    out: list[LabelledReview] = []
    for rec in read_jsonl(path)[:limit]:
        texts: list[str] = []
        labels: list[dict[str, Any]] = []
        full = ""
        for s in rec["sentences"]:
            texts.append(s["text"])
            full += s["text"] + (s.get("suffix") or " ")
            act = s.get("review_action", "none")
            labels.append(
                {
                    "action": act,
                    "argumentative": act in ARGUMENTATIVE_ACTIONS,
                    "role": ROLE_OF_ACTION.get(act),
                    "aspect": disapere_aspect(s.get("aspect", "none")),
                    "raw_aspect": s.get("aspect", "none"),
                }
            )
        out.append(LabelledReview(str(rec["review_id"]), texts, labels, full.strip()))
    return out


def substan_sentence_labels(review: str, spans: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(sentence text, claim|evidence|none) for each sentence of ``review``.

    A sentence takes the kind whose spans cover ≥ 50% of its non-space characters (the larger
    coverage wins if both do); Major_claim counts as claim.
    """
    cover: dict[str, set[int]] = {"claim": set(), "evidence": set()}
    for sp in spans:
        kind = "claim" if sp.get("kind") in ("claim", "major_claim") else sp.get("kind")
        if kind in cover:
            cover[kind].update(range(int(sp["start"]), int(sp["end"])))
    out: list[tuple[str, str]] = []
    for s in sentence_spans(review):
        chars = [k for k in range(s.start, s.end) if not review[k].isspace()]
        label = "none"
        if chars:
            share = {k: sum(1 for c in chars if c in v) / len(chars) for k, v in cover.items()}
            best = max(share, key=lambda k: share[k])
            if share[best] >= 0.5:
                label = best
        out.append((s.text, label))
    return out


def load_substanreview(path: Path, limit: int | None = None) -> list[LabelledReview]:
    """SubstanReview reviews split into sentences with claim/evidence/none labels."""
    out: list[LabelledReview] = []
    for rec in read_jsonl(path)[:limit]:
        pairs = substan_sentence_labels(rec["review"], rec.get("spans", []))
        out.append(
            LabelledReview(
                str(rec["id"]),
                [t for t, _ in pairs],
                [{"label": lab} for _, lab in pairs],
                rec["review"],
            )
        )
    return out


def grounding_of_revutil(majority: Any) -> int | None:
    """0/1/2 grounding of a RevUtil 1–5 grounding_specificity majority label (None if absent)."""
    if majority is None or isinstance(majority, bool):
        return None
    try:
        v = int(majority)
    except (TypeError, ValueError):
        return None
    return 0 if v <= 2 else 1 if v <= 4 else 2


def load_revutil_grounding(path: Path) -> list[tuple[str, int]]:
    """(review point, grounding 0/1/2) for RevUtil points with a majority label."""
    out: list[tuple[str, int]] = []
    for rec in read_jsonl(path):
        g = grounding_of_revutil(rec["labels"]["grounding_specificity"]["majority"])
        if g is not None:
            out.append((rec["review_point"], g))
    return out


def write_substan_dev(src: Path, dst: Path) -> int:
    """Copy the SubstanReview dev slice (records with ``id % 5 == 0``) to ``dst``."""
    rows = [r for r in read_jsonl(src) if int(r["id"]) % 5 == 0]
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(dst, "w", encoding="utf-8", newline="\n") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return len(rows)

"""A small PRISM evaluation layout for generation and task tests (built per test in tmp_path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BODY = (
    "# A Study of Things\n\nAbstract\nWe study things with a new method.\n\n## 1 Introduction\n"
    "Reference implementations are released with the paper.\n\n## 2 Method\nWe propose X. "
    "Table 1 shows X beats Y by 3 points.\n\n"
)
REFS = "## References\nREFERENCE-MARKER Smith et al. 2020. Things. In ICLR.\n"

# (paper id, decision, human ratings) — ICLR 2025 uses Rating 1-10
ICLR = [
    ("a1", "Accept (poster)", [8, 6, 8]), ("a2", "Accept (oral)", [8, 8]), ("a3", "Reject", [3, 5]),
    ("a4", "Reject", [1, 3, 3]), ("a5", "Accept (spotlight)", [6, 8]), ("a6", "Reject", [5, 3]),
    ("a7", "Accept (poster)", [6, 6]), ("a8", "Reject", [3, 3]), ("a9", "Pending", [5]),
    ("a10", "Reject", [5, 6]), ("a11", "Accept (poster)", [8, 5]), ("a12", "Reject", [1, 5]),
]


def _write_paper(vdir: Path, pid: str, decision: str, ratings: list[int], field: str) -> None:
    (vdir / "papers").mkdir(parents=True, exist_ok=True)
    (vdir / "human_reviews").mkdir(parents=True, exist_ok=True)
    (vdir / "papers" / f"{pid}.txt").write_text(BODY.replace("Things", f"Things {pid}") + REFS, encoding="utf-8")
    reviews = [
        {"Summary": f"Summary by reviewer {i} of {pid}.", "Strengths": "Clear writing.",
         "Weaknesses": "Weak baselines.", "Questions": "Why Y?", field: f"{r}: rating"}
        for i, r in enumerate(ratings, 1)
    ]
    data = {"Decision": decision, "Meta review": {"Metareview": "ok"}, "reviews": reviews}
    (vdir / "human_reviews" / f"{pid}.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def mini_layout(tmp_path: Path) -> Path:
    """DATA_ROOT with ICLR2025 (12 papers, ratings, decisions) and ICML2025 (2 accepted papers)."""
    root = tmp_path / "data"
    for pid, dec, rs in ICLR:
        _write_paper(root / "ICLR2025", pid, dec, rs, "Rating")
    for pid, dec, rs in [("m1", "Accept (poster)", [4, 3]), ("m2", "Accept (oral)", [5])]:
        _write_paper(root / "ICML2025", pid, dec, rs, "Overall Recommendation")
    return root


@pytest.fixture
def review_reply() -> dict[str, object]:
    """A valid reply of the review-generation step."""
    return dict(REVIEW_REPLY)


REVIEW_REPLY = {
    "summary": "The paper proposes X and compares it with Y.",
    "strengths": ["Clear method", "Table 1 result"],
    "weaknesses": ["Only one baseline", "No variance reported"],
    "questions": ["How sensitive is X to its settings?"],
    "rating": 6,
    "confidence": 4,
}

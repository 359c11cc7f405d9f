"""Judge prompts mean what prism-reference §4.2, §5.4, §6.2 and §7.2 mean (issue 11, item 7).

Each test pins one definition the prompts had drifted from: what they must say, and the
drifted instruction they must no longer give.
"""

from __future__ import annotations

import re
from pathlib import Path

from prism_review.judge.constructiveness import prompt as arc
from prism_review.judge.depth import prompts as depth
from prism_review.judge.flaws import prompts as flaws
from prism_review.judge.novelty import prompts as novelty


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_segmentation_keeps_restatements_of_the_paper() -> None:
    for system in (depth.SEGMENT_SYSTEM, depth.SELECT_SYSTEM):
        s = _flat(system)
        assert "claim, a premise, an observation or a recommendation" in s
        assert re.search(r"restates? or summarises? what the paper does", s)
        assert "neutral summaries" not in s and "carry no judgement" not in s


def test_roles_are_the_reference_definitions_without_grounding_examples() -> None:
    s = _flat(depth.CLASSIFY_SYSTEM)
    role = s.split('"role":', 1)[1].split('"aspect":', 1)[0]
    assert '"Premise" if the unit gives concrete details, evidence, reasons or specific support' in role
    assert '"Claim" if it asserts a judgment without direct evidence' in role
    # the grounding scale's own markers must not leak into the role definition
    assert not re.search(r"equation|section|figure|dataset|number|baseline", role, re.I), role


def test_aspects_are_the_reference_four() -> None:
    s = _flat(depth.CLASSIFY_SYSTEM)
    assert '"Soundness" (technical correctness, experiments, methodology, mathematics)' in s
    assert '"Clarity" (writing, presentation, figures)' in s
    assert '"Contribution" (originality, novelty, significance, comparisons with baselines)' in s
    assert '"Other"' in s


def test_grounding_scale_is_the_reference_scale() -> None:
    s = _flat(depth.GROUND_SYSTEM)
    assert "0 = generic or vague; 1 = partially specific; 2 = highly specific" in s
    assert "equations, sections, figures, metrics or datasets" in s


def test_constructiveness_covers_score_lines_and_has_one_example_per_level() -> None:
    s = _flat(arc.SYSTEM)
    assert "Skip score" not in s and "Score or rating lines in the review text" in s
    for dim in ("D1_actionability", "D2_specificity", "D3_justification", "D4_solution", "D5_tone"):
        block = arc.RUBRIC.split(dim, 1)[1].split("\nD", 1)[0]
        levels = re.findall(r"^\s+([012]):", block, re.M)
        assert levels == ["0", "1", "2"], (dim, levels)
        assert block.count("(e.g.") == 3, dim  # one worked example per level


def test_constructiveness_rubric_definitions() -> None:
    s = _flat(arc.RUBRIC)
    assert "1: semi-specific, names a section or an area" in s
    assert "2: full evidence, such as a specific prior work or an equation" in s
    assert "0: hostile or dismissive" in s and "2: professional-constructive, encouraging" in s


def test_novelty_stance_labels_are_the_reference_labels() -> None:
    s = _flat(novelty.VERDICT_RULES)
    assert "contradicted: the evidence contradicts the claim, or no supporting evidence is found" in s
    assert "insufficient: the claim is vague, or the evidence is missing or cannot be verified" in s
    assert "aligned: the claim agrees with the related work and is supported by it" in s
    assert "partial: there is some relation, but the evidence is inconclusive" in s
    assert "When unsure, answer insufficient" in s


def test_flaw_grouping_rule_is_nature_or_severity() -> None:
    s = _flat(flaws.CONSOLIDATE_SYSTEM)
    assert "of the same nature or the same severity level may be grouped" in s
    assert "the exact quote" in s


def test_fidelity_document_has_a_section_per_area() -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "fidelity.md"
    heads = re.findall(r"^## (.+)$", doc.read_text(encoding="utf-8"), re.M)
    for area in ("General", "Depth of Analysis", "Novelty", "Flaw", "Constructiveness"):
        assert any(area in h for h in heads), (area, heads)

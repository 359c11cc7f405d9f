"""Judge prompts state the original PRISM code's decision rules (issue 30).

The rules live in one table, :mod:`prism_review.judge.reference_rules`: each names its step, the
original file and function, and the phrases its prompts must contain. Here every rule is checked
against every prompt text of its step, every rule is described in ``docs/judge-rules.md``, every
difference is listed in ``docs/fidelity.md``, and the offline judge's constructs are checked
against the same table where they apply (label scores, stance scores, value sets, the D4 boundary).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prism_review.judge.constructiveness import prompt as arc
from prism_review.judge.constructiveness.rules import solution_level
from prism_review.judge.novelty import claims, normalise
from prism_review.judge.novelty.verdict import HIGH, LOW, MID, offline_label
from prism_review.judge.reference_rules import RULES, by_id, folded, step_prompts
from prism_review.metrics import constructiveness as con_metrics
from prism_review.metrics import cps, depth
from prism_review.metrics.novelty import LABEL_SCORES

DOCS = Path(__file__).resolve().parents[2] / "docs"
PROMPTED = [r for r in RULES if r.markers or r.forbidden]


def test_rule_ids_are_unique_and_steps_have_prompts() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    prompts = step_prompts()
    assert {r.step for r in RULES} <= set(prompts)
    # a stated rule must name what shows it; a difference or code rule need not
    assert all(r.markers for r in RULES if r.status == "stated")


@pytest.mark.parametrize("rule", PROMPTED, ids=[r.id for r in PROMPTED])
def test_every_prompt_of_the_step_states_the_rule(rule) -> None:
    for text in step_prompts()[rule.step]:
        flat = folded(text)
        missing = [m for m in rule.markers if folded(m) not in flat]
        assert not missing, (rule.id, missing)
        present = [m for m in rule.forbidden if folded(m) in flat]
        assert not present, (rule.id, present)


def test_every_verdict_prompt_carries_the_shared_rules() -> None:
    from prism_review.judge.novelty import prompts

    for template in (prompts.VERDICT_USER, prompts.VERDICT_BATCH_USER, prompts.VERDICT_REVIEW_USER):
        assert "{rules}" in template


def test_every_rule_is_described_in_judge_rules_md() -> None:
    text = (DOCS / "judge-rules.md").read_text(encoding="utf-8")
    missing = [r.id for r in RULES if f"`{r.id}`" not in text]
    assert not missing, missing
    for r in RULES:  # each with the original file it comes from
        assert r.source.split("::", 1)[0].split(" ", 1)[0] in text, r.id


def test_every_difference_is_listed_in_fidelity_md() -> None:
    text = (DOCS / "fidelity.md").read_text(encoding="utf-8")
    section = text.split("## Judge prompts against the original code", 1)[1].split("\n## ", 1)[0]
    missing = [r.id for r in RULES if r.status == "differs" and f"`{r.id}`" not in section]
    assert not missing, missing


# ---- the offline judge's constructs against the same table ------------------------------


def test_label_scores_are_the_original_label_scores() -> None:
    assert by_id()["NOV-LABELS"].values["label_scores"] == LABEL_SCORES


def test_stance_scores_and_value_sets_are_the_originals() -> None:
    assert by_id()["NOV-STANCE"].values["stance_scores"] == normalise.STANCE_SCORES
    assert tuple(normalise.CALIBRATIONS) == by_id()["NOV-CALIBRATION"].values["calibrations"]
    assert by_id()["NOV-CLAIM-FIELDS"].values["stances"] == claims.STANCES
    assert by_id()["DOA-ASPECTS"].values["aspects"] == depth.ASPECTS
    assert by_id()["DOA-PREMISE"].values["roles"] == (depth.PREMISE, depth.CLAIM)
    assert by_id()["CON-TYPES"].values["types"] == con_metrics.COMMENT_TYPES
    assert {k: int(v) for k, v in cps.SEVERITY_WEIGHTS.items()} == by_id()["FLW-SEVERITY-NONE"].values[
        "severity_points"]


def test_taxonomy_topics_are_the_originals() -> None:
    from prism_review.judge.flaws.taxonomy import TAXONOMY

    assert tuple(name for _, (name, _) in sorted(TAXONOMY.items())) == by_id()["FLW-TAXONOMY"].values["topics"]


def test_a_stance_with_an_unknown_label_scores_by_the_stance() -> None:
    """NOV-STANCE-SETS-SCORE: the original's derivation, in both modes."""
    for compat in (False, True):
        for stance, score in normalise.STANCE_SCORES.items():
            got = normalise.normalize_verdict({"stance_alignment": stance, "label": "no idea"},
                                              "C1", "P1", "claim", compat=compat)
            assert got is not None and got["score"] == score, (stance, compat)
            assert got["label"] == normalise.ASKED_LABELS[stance]


def test_the_asked_labels_are_the_labels_of_the_stance_scores() -> None:
    for stance, label in normalise.ASKED_LABELS.items():
        assert LABEL_SCORES[label] == normalise.STANCE_SCORES[stance]


def test_offline_verdicts_use_the_original_labels_and_unclear_is_insufficient() -> None:
    deltas = [0.2, HIGH, (HIGH + MID) / 2, MID, (MID + LOW) / 2, LOW, -0.5]
    for stance in by_id()["NOV-CLAIM-FIELDS"].values["stances"]:
        for d in deltas:
            for named in (False, True):
                assert offline_label(stance, d, named) in LABEL_SCORES
    # a claim with no stance to check is never contradicted: it is the insufficient score, 0
    assert {offline_label("unclear", d) for d in deltas} == {"AMBIGUOUS"}
    assert LABEL_SCORES["AMBIGUOUS"] == normalise.STANCE_SCORES["insufficient"]


@pytest.mark.parametrize(("raw", "compat", "want"), [
    ("SUPPORTED", False, "SUPPORTED"),
    ("unsupported.", True, "SUPPORTED"),      # the original's first-substring match (N5)
    ("NOT SUPPORTED", True, "SUPPORTED"),
    ("Partially OVERSTATED", True, "OVERSTATED"),
    ("CONTRADICTED", True, None),             # unknown: the stance sets the score
    ("unsupported.", False, "UNSUPPORTED"),   # clean: whole words, negation first
    ("NOT SUPPORTED", False, "UNSUPPORTED"),
])
def test_label_parsing_compat_is_the_original_substring_rule(raw, compat, want) -> None:
    """NOV-LABEL-PARSE: exact match, else the first label contained, in the original's order."""
    assert normalise.normalize_label(raw, compat=compat) == want


def _d4_examples() -> list[tuple[int, str]]:
    block = arc.RUBRIC.split("D4_solution", 1)[1].split("\nD5", 1)[0]
    out = []
    for level, body in re.findall(r"^\s+([012]):(.*?)(?=^\s+[012]:|\Z)", block, re.M | re.S):
        quote = re.search(r'"([^"]+)"', body)
        assert quote, (level, body)
        out.append((int(level), quote.group(1)))
    return out


def test_offline_d4_agrees_with_the_prompt_examples_and_the_implicit_fix_rule() -> None:
    """CON-D4-IMPLICIT: a statement of what is lacking implies its fix (1)."""
    examples = _d4_examples()
    assert [lvl for lvl, _ in examples] == [0, 1, 2]
    for level, text in examples:
        assert solution_level(text) == level, (level, text)
    # the original's own case: a lack of recent state-of-the-art methods implies adding them
    assert solution_level("The comparison lacks recent state-of-the-art methods.") == 1


def test_fidelity_document_has_a_section_per_area() -> None:
    heads = re.findall(r"^## (.+)$", (DOCS / "fidelity.md").read_text(encoding="utf-8"), re.M)
    for area in ("General", "Depth of Analysis", "Novelty", "Flaw", "Constructiveness"):
        assert any(area in h for h in heads), (area, heads)

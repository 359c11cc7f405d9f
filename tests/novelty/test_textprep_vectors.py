import pytest

from prism_review.judge.novelty.textprep import (
    extract_abstract_intro,
    paper_for_extraction,
    related_work_text,
    sanitize,
    truncate_at_references,
)
from prism_review.testing.vectors import vector_cases as cases


@pytest.mark.parametrize("case", cases("novelty_text_prep.json", "truncate_at_references"))
def test_truncate_at_references(case):
    assert truncate_at_references(case["input"]["text"]) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_text_prep.json", "sanitize_for_llm"))
def test_sanitize(case):
    assert sanitize(case["input"]["text"]) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_text_prep.json", "extract_abstract_intro_from_text"))
def test_abstract_intro(case):
    inp = case["input"]
    assert extract_abstract_intro(inp["paper_text"], max_chars=inp["max_chars"]) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_text_prep.json", "_build_related_work_text"))
def test_related_work_text(case):
    assert related_work_text(case["input"]["item"]) == case["expected"]


def test_strict_truncation_avoids_s2_early_cut():
    text = "Abstract.\nReference implementations are released.\nMethod...\n## 6 References\n[1]"
    assert truncate_at_references(text) == "Abstract."  # reference rule (risk S2)
    assert truncate_at_references(text, strict=True) == (
        "Abstract.\nReference implementations are released.\nMethod..."
    )
    assert truncate_at_references("Body\nAcknowledgments:\nthanks", strict=True) == "Body"


def test_paper_for_extraction_keeps_text_without_marker_and_truncates():
    assert paper_for_extraction("abc " * 10, max_chars=8) == "abc abc "
    assert paper_for_extraction("Body\nReferences\n[1] x") == "Body"


def test_intro_ends_only_at_short_heading_lines():
    text = "Introduction\nResults show that X is hard and we need a new kind of method for it here.\nMore.\n2 Method\nM."
    out = extract_abstract_intro(text)
    assert out == "Introduction:\nResults show that X is hard and we need a new kind of method for it here.\nMore."

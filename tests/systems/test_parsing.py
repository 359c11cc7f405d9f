"""Header parsing, <think> removal and score reading shared by the adapters."""

from __future__ import annotations

from prism_review.records import Section
from prism_review.systems.parsing import (
    family,
    read_section_scores,
    split_bold_sections,
    split_hash_sections,
    split_think,
    strip_rules,
    strip_think,
)


def test_split_think_closed_block() -> None:
    think, body = split_think("<think>\nreasoning\n</think>\n\n## Summary\nok")
    assert "reasoning" in think
    assert body.strip() == "## Summary\nok"


def test_stray_close_drops_everything_before() -> None:
    assert strip_think("half a thought </think>\nReview body").strip() == "Review body"


def test_unclosed_think_leaves_only_text_before_it() -> None:
    assert strip_think("Intro line\n<think>never finished").strip() == "Intro line"
    assert strip_think("<think>only reasoning").strip() == ""


def test_think_is_case_insensitive_and_repeated() -> None:
    text = "<THINK>a</THINK>x<think>b</think>y"
    assert strip_think(text) == "xy"


def test_bold_sections_stop_at_any_section_header_d3_fix() -> None:
    text = (
        "**Summary:**\nS.\n\n**Weaknesses:**\n- W1\n\n**Questions:**\n- Q1\n\n**Rating:**\n6: ok\n"
    )
    secs = split_bold_sections(text)
    assert [s.name for s in secs] == ["Summary", "Weaknesses", "Questions", "Rating"]
    assert secs[1].text == "- W1"  # Questions and the rating are not swallowed


def test_bold_subheading_stays_inside_its_section() -> None:
    text = "**Weaknesses:**\n**Major concerns:**\n- only three datasets\n\n**Questions:**\n- why?"
    secs = split_bold_sections(text)
    assert [s.name for s in secs] == ["Weaknesses", "Questions"]
    assert "Major concerns" in secs[0].text and "three datasets" in secs[0].text


def test_bold_header_variants_and_inline_values() -> None:
    text = "**Summary**:\nA.\n**Strengths**\n- B\n**Soundness:** 3 good\n"
    secs = split_bold_sections(text)
    assert [(s.name, s.text) for s in secs] == [
        ("Summary", "A."),
        ("Strengths", "- B"),
        ("Soundness", "3 good"),
    ]


def test_unknown_bold_headers_used_only_as_fallback() -> None:
    secs = split_bold_sections("**Overview**\nText one.\n\n**Issues**\nText two.")
    assert [s.name for s in secs] == ["Overview", "Issues"]


def test_no_header_gives_one_unnamed_section() -> None:
    assert split_bold_sections("just prose") == [Section(name="", text="just prose")]
    assert split_hash_sections("  ") == []


def test_hash_sections_levels_numbering_and_preamble() -> None:
    text = "Preamble.\n## 1. Summary Of The Paper\nS\n### **Weaknesses**\nW\n#### detail\nD\n"
    secs = split_hash_sections(text)
    assert [s.name for s in secs] == ["", "Summary Of The Paper", "Weaknesses"]
    assert secs[2].text == "W\n#### detail\nD"


def test_strip_rules_only_at_the_end() -> None:
    assert strip_rules("a\n---\nb\n===\n***\n") == "a\n---\nb"


def test_families() -> None:
    assert family("Summary Of The Paper") == "summary"
    assert family("Questions For The Authors") == "questions"
    assert family("Limitations Not Addressed By The Authors") == "limitations"
    assert family("Brief Justification For Rating") == "justification"
    assert family("Strengths and Weaknesses") == "strengths_weaknesses"
    assert family("Other Strengths And Weaknesses") == "strengths_weaknesses"
    assert family("Strength And Weaknesses") == "strengths_weaknesses"  # ICLR 2023 form
    assert family("Main Review") == "strengths_weaknesses"  # ICLR 2022 form
    assert family("Paper Decision") == "decision"
    assert family("Overall Recommendation") == "rating"
    assert family("Technical Novelty and Significance") == "contribution"
    assert family("Code Of Conduct") == "meta"
    assert family("Claims And Evidence") == "other"
    assert family("Comment 3: Wrong constant") == "weaknesses"  # BYO quote-anchored comment
    assert family("Additional Comments") == "other"


def test_section_scores_raw_and_normalised_on_llm_scale() -> None:
    secs = [
        Section(name="Soundness", text="3 good"),
        Section(name="Rating", text="6: marginally above\nmore"),
        Section(name="Confidence", text="not a number"),
        Section(name="Paper Decision", text="Accept"),
        Section(name="Summary", text="4 things"),
    ]
    raw, norm = read_section_scores(secs)
    assert raw == {
        "Soundness": "3 good",
        "Rating": "6: marginally above",
        "Confidence": "not a number",
        "Paper Decision": "Accept",
    }
    assert norm["Soundness"] == 2 / 3  # (3-1)/(4-1)
    assert norm["Rating"] == 5 / 9  # (6-1)/(10-1)
    assert norm["Confidence"] is None
    assert "Paper Decision" not in norm

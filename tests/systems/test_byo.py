"""Bring-your-own JSONL reviews (docs/byo-format.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from prism_review.dimensions.review_text import review_text
from prism_review.guards.errors import DataError
from prism_review.systems.byo import ByoSource, check_folder, is_byo_folder

# One real comment of OpenAIReview's example output (ChicagoHAI/OpenAIReview, commit 27740f8,
# examples/apep-0001-tex.json, MIT licence), shortened.
OAI_COMMENT = {
    "id": "progressive__claude-opus-4-6_0",
    "title": "Inconsistent baseline hours figure across paper sections",
    "quote": "representing a 2.4 percent increase from a baseline of approximately 28 hours "
    "among low-wage service workers",
    "explanation": "The paper uses multiple baseline hours figures without clarification. "
    "Table 2 reports a mean of 29.1 hours, and Table 3 reports 28.4 hours.",
    "comment_type": "technical",
    "paragraph_index": 8,
}


def write(folder: Path, rows: list[Any], name: str = "reviews.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_sections_text_and_comments(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    write(
        folder,
        [
            {
                "paper_id": "a",
                "sections": [{"name": "Summary", "text": "S."}, {"name": "Weaknesses", "text": ""}],
                "scores": {
                    "Rating": "8",
                    "Confidence": 4,
                    "Technical Novelty and Significance": "3",
                    "Flag": "NO",
                },
            },
            {"paper_id": "b", "text": "<think>x</think>## Summary\nShort.\n## Weaknesses\n- Thin."},
            {
                "paper_id": "c",
                "reviewer_id": "claude-opus-4-6",
                "sections": [{"name": "Summary", "text": "Overall feedback."}],
                "comments": [OAI_COMMENT],
            },
        ],
    )
    assert is_byo_folder(folder)
    src = ByoSource(folder, "mine")
    assert src.paper_ids() == ["a", "b", "c"]
    (a,) = src.reviews("a", "ICLR2025")
    assert a.system == "mine" and a.reviewer_id == "LLM_Reviewer"
    assert [s.name for s in a.sections] == ["Summary"]  # empty text dropped
    assert a.scores["Rating"] == pytest.approx(7 / 9)  # ICLR 2025 rating 1..10
    assert a.scores["Confidence"] == pytest.approx(0.75)
    assert a.scores["Technical Novelty and Significance"] == pytest.approx(2 / 3)
    assert a.scores["Flag"] is None
    (b,) = src.reviews("b", "ICLR2025")
    assert [(s.name, s.text) for s in b.sections] == [
        ("Summary", "Short."),
        ("Weaknesses", "- Thin."),
    ]
    (c,) = src.reviews("c", "ICLR2025")
    assert c.reviewer_id == "claude-opus-4-6"
    assert c.sections[1].name == f"Comment 1: {OAI_COMMENT['title']}"
    assert c.sections[1].text.startswith("> representing a 2.4 percent")
    assert c.extra["comments"][0]["paragraph_index"] == 8
    assert "Table 3 reports 28.4 hours" in review_text(c, "flaws")
    assert src.reviews("zzz", "ICLR2025") == []


def test_duplicate_reviewer_ids_and_file_order(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    write(folder, [{"paper_id": "a", "text": "one"}, {"paper_id": "a", "text": "two"}])
    write(folder, [{"paper_id": "a", "text": "three", "reviewer_id": "R"}], name="more.jsonl")
    reviews = ByoSource(folder, "mine").reviews("a", "ICLR2024")
    assert [(r.reviewer_id, r.sections[0].text) for r in reviews] == [
        ("LLM_Reviewer", "one"),
        ("LLM_Reviewer_2", "two"),
        ("R", "three"),
    ]
    assert reviews[2].source_path.endswith("more.jsonl:1")


def test_unicode_line_separators_do_not_split_rows(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    write(folder, [{"paper_id": "a", "text": "first\u2028second\u2029third"}])
    (r,) = ByoSource(folder, "mine").reviews("a", "ICLR2024")
    assert "\u2028" in r.sections[0].text


BAD_ROWS = [
    ('{"paper_id": "a", "text": "trunc', "invalid JSON"),
    # json's reason already ends in "at": the position is appended once ("... at at col" before)
    ('{"paper_id": "a", "text": "tab\there"}', r"invalid JSON \(Invalid control character at col \d+\)"),
    ('["a list"]', "expected an object"),
    ('{"text": "no id"}', "paper_id"),
    ('{"paper_id": "a"}', "no review text"),
    ('{"paper_id": "a", "sections": "x"}', "sections"),
    ('{"paper_id": "a", "sections": [{"name": "S", "text": 3}]}', r"sections\[0\]"),
    ('{"paper_id": "a", "text": 5}', "text"),
    ('{"paper_id": "a", "comments": [{"title": "t", "quote": 1}]}', r"comments\[0\]"),
    ('{"paper_id": "a", "text": "   "}', "no review text"),
]


@pytest.mark.parametrize(("row", "message"), BAD_ROWS)
def test_malformed_rows_are_named_and_skipped(tmp_path: Path, row: str, message: str) -> None:
    folder = tmp_path / "mine"
    path = write(folder, [{"paper_id": "ok", "text": "fine"}, row])
    source = ByoSource(folder, "mine")
    assert list(source.index()) == ["ok"]  # the good row still loads
    (problem,) = source.problems
    assert isinstance(problem, DataError) and re.search(message, str(problem))
    assert problem.path == str(path)
    assert problem.field is not None and problem.field.startswith("line 2")


def test_non_utf8_row(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "reviews.jsonl").write_bytes(
        b'{"paper_id": "a", "text": "ok"}\n{"paper_id": "b", "text": "\xff"}\n'
    )
    source = ByoSource(folder, "mine")
    assert list(source.index()) == ["a"]
    (problem,) = source.problems
    assert "UTF-8" in str(problem)


def test_check_folder_reports_every_bad_row(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    write(folder, [row for row, _ in BAD_ROWS] + [{"paper_id": "fine", "text": "ok"}])
    problems = check_folder(folder)
    fields = [str(p[1]).split(":")[0] for p in problems]
    assert fields == [f"line {i}" for i in range(1, len(BAD_ROWS) + 1)]
    assert len(problems) == len(BAD_ROWS)
    assert all(p[0].endswith("reviews.jsonl") for p in problems)

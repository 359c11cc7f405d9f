"""validate_layout: every §1.2 rule, all problems reported at once, never a crash."""

from __future__ import annotations

import builtins
import json
import shutil
from pathlib import Path

import pytest

from prism_review.data.layout import demo_root
from prism_review.data.layout_check import LayoutProblem, validate_layout
from prism_review.testing import layout_samples as S

ALL = ("ICLR2024", "ICLR2025", "ICLR2026", "ICML2025", "NeurIPS2025")


def rel(root: Path, problems: list[LayoutProblem]) -> list[tuple[str, str | None, str]]:
    return [
        (
            str(Path(p.path).relative_to(root)) if p.path.startswith(str(root)) else p.path,
            p.field,
            p.message,
        )
        for p in problems
    ]


def has(
    found: list[tuple[str, str | None, str]], path: str, text: str, field: str | None = "*"
) -> bool:
    return any(p == path and text in m and (field == "*" or f == field) for p, f, m in found)


def test_complete_layout_is_valid(tmp_path: Path) -> None:
    S.write_layout(tmp_path, {v: ["a", "b"] for v in ALL})
    assert validate_layout(tmp_path) == []
    assert validate_layout(tmp_path, venues=["ICLR_2025", "icml2025"]) == []


def test_many_problems_reported_together(tmp_path: Path) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a", "b", "c"], "ICLR2025": ["z"]})
    v = tmp_path / "ICLR2024"
    shutil.rmtree(v / "tree")  # a missing system folder
    (v / "cyclereview" / "b.json").unlink()  # a paper not covered
    (v / "sea" / "a.txt").write_text(" \n", encoding="utf-8")  # empty .txt review
    (v / "reviewer2" / "b.txt").write_bytes(b"PAPER: x\n\xff\xfe")  # non-UTF-8
    (v / "human_reviews" / "a.json").write_text('{"reviews": [{"Summary": "tru', encoding="utf-8")
    (v / "human_reviews" / "b.json").write_text(
        json.dumps({"reviews": {"Summary": "x"}}), encoding="utf-8"
    )
    (v / "human_reviews" / "c.json").write_text(
        json.dumps({"reviews": [{"Summary": "  "}, 3]}), encoding="utf-8"
    )
    (v / "deepreview" / "a.json").write_text(
        json.dumps({"generated_review": {"reviews": []}}), encoding="utf-8"
    )
    (v / "deepreview" / "c.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    (v / "cyclereview" / "a.json").write_text(
        json.dumps({"generated_review": {"content": ""}}), encoding="utf-8"
    )
    (v / "papers" / "empty.txt").write_text("", encoding="utf-8")
    (v / "papers" / "binary.txt").write_bytes(b"\x80\x81")
    (v / "papers" / "notes.pdf").write_bytes(b"%PDF")
    (v / "paper_ids_200_iclr2024.txt").write_text("a\nb\nc\nghost\n", encoding="utf-8")
    (v / "paper_ids_50_iclr2024.txt").write_text("b\n", encoding="utf-8")
    (v / "my_reviewer" / "reviews.jsonl").write_text(
        '{"paper_id": "a", "text": "ok"}\n{"paper_id": 5.5\n{"paper_id": "b"}\n', encoding="utf-8"
    )
    (v / "TreeReview").mkdir()
    (v / "TreeReview" / "x.jsonl").write_text('{"paper_id": "a", "text": "t"}\n', encoding="utf-8")

    found = rel(tmp_path, validate_layout(tmp_path))
    expected = [
        ("ICLR2024/tree", "review folder for system 'treereview' is missing", None),
        ("ICLR2024/cyclereview", "no review file for paper 'b'", "b"),
        ("ICLR2024/sea/a.txt", "review file is empty", None),
        ("ICLR2024/reviewer2/b.txt", "not valid UTF-8", None),
        ("ICLR2024/human_reviews/a.json", "invalid JSON", None),
        ("ICLR2024/human_reviews/b.json", "'reviews' is a dict", "reviews"),
        ("ICLR2024/human_reviews/c.json", "no review holds a non-empty text value", "reviews"),
        ("ICLR2024/deepreview/a.json", "'generated_review' must be a list", "generated_review"),
        ("ICLR2024/deepreview/c.json", "expected a JSON object", None),
        ("ICLR2024/cyclereview/a.json", "neither a non-empty 'content'", "generated_review"),
        ("ICLR2024/papers/empty.txt", "paper text is empty", None),
        ("ICLR2024/papers/binary.txt", "not valid UTF-8", None),
        ("ICLR2024/papers/notes.pdf", "unexpected entry", None),
        (
            "ICLR2024/paper_ids_200_iclr2024.txt",
            "'ghost' is listed but papers/ has no text",
            "ghost",
        ),
        ("ICLR2024/paper_ids_50_iclr2024.txt", "not the first ids", None),
        ("ICLR2024/my_reviewer/reviews.jsonl", "invalid JSON", "line 2"),
        ("ICLR2024/my_reviewer/reviews.jsonl", "no review text", "line 3"),
        ("ICLR2024/TreeReview", "may not reuse a built-in system name", None),
    ]
    missing = [e for e in expected if not has(found, e[0], e[1], e[2])]
    assert missing == [], found
    # the valid venue next to it is not blamed
    assert not any(p.startswith("ICLR2025") for p, _, _ in found)
    # with a manifest, coverage is checked for the manifest ids only (ghost is not a paper)
    assert not has(found, "ICLR2024/sea", "'ghost'")


def test_requested_and_unknown_venues(tmp_path: Path) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a"]})
    found = rel(tmp_path, validate_layout(tmp_path, venues=["ICLR2024", "NeurIPS2025", "CVPR2030"]))
    assert has(found, "NeurIPS2025", "venue folder is missing")
    assert any("unknown venue 'CVPR2030'" in m for _, _, m in found)
    assert validate_layout(tmp_path / "nope") == [
        LayoutProblem(str(tmp_path / "nope"), None, "data root is not a directory")
    ]
    (tmp_path / "empty").mkdir()
    assert "no venue folder" in validate_layout(tmp_path / "empty")[0].message


def test_missing_and_empty_papers_folder(tmp_path: Path) -> None:
    (tmp_path / "ICLR2025").mkdir()
    found = rel(tmp_path, validate_layout(tmp_path))
    assert has(found, "ICLR2025/papers", "papers folder is missing")
    (tmp_path / "ICLR2025" / "papers").mkdir()
    found = rel(tmp_path, validate_layout(tmp_path))
    assert has(found, "ICLR2025/papers", "papers folder is empty")


def test_partial_coverage_mode(tmp_path: Path) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a", "b"]}, byo=None)
    v = tmp_path / "ICLR2024"
    for folder in ("sea", "reviewer2", "tree", "deepreview", "cyclereview"):
        shutil.rmtree(v / folder)
    assert validate_layout(tmp_path, require_all_systems=False) == []
    (v / "human_reviews" / "b.json").unlink()
    found = rel(tmp_path, validate_layout(tmp_path, require_all_systems=False))
    assert found == [("ICLR2024", "b", "paper 'b' has no readable review from any system")]
    strict = rel(tmp_path, validate_layout(tmp_path))
    assert len([p for p in strict if "is missing" in p[2]]) == 5


@pytest.mark.parametrize("strict", [False, True])
def test_bundled_demo(strict: bool) -> None:
    # every paper has human reviews; its LLM systems are bring-your-own, so the five built-in
    # LLM folders are not required even in the strict (default) mode
    assert validate_layout(demo_root(), require_all_systems=strict) == []


def test_strict_mode_with_bring_your_own_systems(tmp_path: Path) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a", "b"]})  # built-ins and a BYO folder
    v = tmp_path / "ICLR2024"
    for folder in ("sea", "reviewer2", "tree", "deepreview", "cyclereview"):
        shutil.rmtree(v / folder)
    assert validate_layout(tmp_path) == []  # the BYO system stands in for PRISM's LLMs
    (v / "human_reviews" / "b.json").unlink()  # human reviews stay required, per paper
    assert rel(tmp_path, validate_layout(tmp_path)) == [
        ("ICLR2024/human_reviews", "b", "no review file for paper 'b'")
    ]
    shutil.rmtree(v / "human_reviews")
    assert rel(tmp_path, validate_layout(tmp_path)) == [
        ("ICLR2024/human_reviews", None, "review folder for system 'human' is missing")
    ]


def test_bad_paper_metadata_rows(tmp_path: Path) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a"]})
    (tmp_path / "ICLR2024" / "paper_metadata.jsonl").write_text(
        '{"paper_id": "a", "title": "T"}\n{"paper_id": 3}\n{"paper_id": "b"\n', encoding="utf-8"
    )
    found = rel(tmp_path, validate_layout(tmp_path))
    assert [(p, f) for p, f, _ in found] == [
        ("ICLR2024/paper_metadata.jsonl", "line 2"),
        ("ICLR2024/paper_metadata.jsonl", "line 3"),
    ]


CORRUPTIONS = [
    b"",
    b"\xff\xfe\x00garbage",
    b'{"reviews": [{"Summary": "x"',
    b"[1, 2, 3]",
    b"null",
    b'"just a string"',
    b'{"generated_review": 5, "full_review": 7, "reviews": "x"}',
]


@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_never_crashes_on_corrupted_files(tmp_path: Path, corruption: bytes) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a", "b"], "ICML2025": ["m"]})
    for path in sorted(tmp_path.rglob("*")):
        if path.is_file() and path.name.startswith(("a", "m", "reviews")):
            path.write_bytes(corruption)
    problems = validate_layout(tmp_path)
    assert problems and all(isinstance(p, LayoutProblem) for p in problems)
    reported = {Path(p.path).relative_to(tmp_path).as_posix() for p in problems}
    files = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    # every corruption breaks every JSON review rule; texts only break when empty or not UTF-8
    json_reviews = {f for f in files if f.endswith(".json") and Path(f).name.startswith(("a", "m"))}
    texts = {f for f in files if f.endswith(".txt") and Path(f).name.startswith(("a", "m"))}
    assert json_reviews <= reported
    text_broken = corruption == b"" or not _is_utf8(corruption)
    assert (texts <= reported) if text_broken else not (texts & reported)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_manifest_read_error_message_survives_a_colon_in_the_path(tmp_path: Path) -> None:
    # the problem message was cut out of str(DataError) at the first ": ", so a folder name
    # holding ": " leaked part of the path into the message
    root = tmp_path / "runs: v2"
    S.write_layout(root, {"ICLR2024": ["a"]})
    (root / "ICLR2024" / "paper_ids_200_iclr2024.txt").write_bytes(b"a\n\xff\n")
    found = rel(root, validate_layout(root))
    assert ("ICLR2024/paper_ids_200_iclr2024.txt", None, "not valid UTF-8 (byte 2)") in found


def test_unreadable_paper_metadata_is_a_problem_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    S.write_layout(tmp_path, {"ICLR2024": ["a"]})
    meta = tmp_path / "ICLR2024" / "paper_metadata.jsonl"
    meta.write_text('{"paper_id": "a"}\n', encoding="utf-8")
    real_read, real_open = Path.read_bytes, builtins.open

    def read_bytes(self: Path) -> bytes:
        if self == meta:
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    def open_(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(file) == meta if isinstance(file, str | Path) else False:
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)  # whichever way the file is read
    monkeypatch.setattr(builtins, "open", open_)
    found = rel(tmp_path, validate_layout(tmp_path))
    assert found == [("ICLR2024/paper_metadata.jsonl", None, "cannot read file (Permission denied)")]


def test_validate_reads_a_byo_file_twice_at_most(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The row check and the index; the coverage count reuses the index (it indexed the folder
    a second time) and the copy check hashes nothing when no two files share a size."""
    S.write_layout(tmp_path, {"ICLR2024": ["a", "b"]})
    byo = tmp_path / "ICLR2024" / "my_reviewer"
    assert (byo / "reviews.jsonl").is_file()
    opened: list[str] = []
    real = Path.open

    def counting(self: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.parent == byo:
            opened.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting)
    assert validate_layout(tmp_path, require_all_systems=False) == []
    assert opened.count("reviews.jsonl") <= 2, opened

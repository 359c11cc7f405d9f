"""Hostile evaluation layouts: ``prism data validate`` and ``prism evaluate``'s input collection
must both name the problem (same verdict: a problem, or a counted skip), nothing may be read from
outside DATA_ROOT, no traceback, and the other papers still load."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from prism_review.data.layout_check import LayoutProblem, validate_layout
from prism_review.data.source_kinds import LayoutSource
from prism_review.pipelines.inputs import collect_inputs

from .hostile import DEEP, SECRET, deep_object, layout, symlink, v


@dataclass(frozen=True)
class Case:
    id: str
    make: Callable[[Path, Path], None]  # (root, tmp) → mutate the layout
    fragment: str  # in the message of both commands
    kind: str = "problem"  # or "skip" (counted, not an error)
    validate: bool = True  # False: only evaluate reports it (texts cut to the limits)
    validate_fragment: str | None = None  # when validate words it differently


def _manifest(lines: str) -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        (v(root) / "paper_ids_200_iclr2024.txt").write_text(lines, encoding="utf-8")

    return make


def _write(rel: str, data: str | bytes, venue: str = "ICLR2024") -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        path = v(root, venue) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")

    return make


def _link(rel: str, target: str) -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        symlink(v(root) / rel, tmp / "outside" / target if target else tmp / "outside")

    return make


def _human(edit: Callable[[dict], None]) -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        path = v(root) / "human_reviews" / "p1.json"
        data = json.loads(path.read_text())
        edit(data)
        path.write_text(json.dumps(data))

    return make


def _byo_row(row: str | bytes) -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        path = v(root) / "my_reviewer" / "reviews.jsonl"
        raw = row if isinstance(row, bytes) else row.encode()
        path.write_bytes(path.read_bytes() + raw + b"\n")

    return make


def _set(d: dict, key: str, value: object) -> None:
    d[key] = value


CASES = [
    # -- paths leaving DATA_ROOT ------------------------------------------------------------
    Case("manifest-dotdot", _manifest("p1\n../../../../outside/secret\np2\n"), "not a plain file name"),
    Case("manifest-absolute", _manifest("p1\n/etc/passwd\n"), "not a plain file name"),
    Case("manifest-backslash", _manifest("p1\n..\\..\\outside\\secret\n"), "not a plain file name"),
    Case("manifest-nul", _manifest("p1\np\x002\n"), "not a plain file name"),
    Case("manifest-hidden", _manifest("p1\n.secret\n"), "not a plain file name"),
    Case("paper-symlink-out", _link("papers/p2.txt", "secret.txt"), "outside"),
    Case("system-folder-symlink-out", _link("sea", ""), "outside"),
    Case("review-file-symlink-out", _link("sea/p1.txt", "p1.txt"), "outside"),
    Case("human-file-symlink-out", _link("human_reviews/p1.json", "p1.json"), "outside"),
    Case("byo-file-symlink-out", _link("my_reviewer/reviews.jsonl", "reviews.jsonl"), "outside"),
    Case("metadata-symlink-out", _link("paper_metadata.jsonl", "meta.jsonl"), "outside"),
    Case("manifest-symlink-out", _link("paper_ids_200_iclr2024.txt", "secret.txt"), "outside"),
    # -- nesting depth ------------------------------------------------------------------------
    Case("deep-human-file", _write("human_reviews/p1.json", DEEP), "nested deeper"),
    Case("deep-human-field", _write("human_reviews/p1.json", deep_object("reviews")), "nested deeper"),
    Case("deep-tree", _write("tree/p1_review.json", DEEP), "nested deeper"),
    Case("deep-deepreview", _write("deepreview/p1.json", deep_object()), "nested deeper"),
    Case("deep-cyclereview", _write("cyclereview/p1.json", DEEP), "nested deeper"),
    Case("deep-byo-line", _byo_row(deep_object("paper_id")), "nested deeper"),
    Case("deep-metadata-line", _write("paper_metadata.jsonl", deep_object() + "\n"), "nested deeper"),
    Case("deep-ten-levels-over", _write("tree/p1_review.json", "[" * 65 + "]" * 65), "nested deeper"),
    # -- one bad file breaks nothing else -----------------------------------------------------
    Case("paper-not-utf8", _write("papers/p2.txt", b"\xff\xfe bad bytes"), "not valid UTF-8"),
    Case("paper-empty", _write("papers/p2.txt", ""), "paper text is empty"),
    Case("paper-whitespace", _write("papers/p2.txt", " \n\t\n"), "paper text is empty"),
    Case("metadata-bad-line", _write("paper_metadata.jsonl", '{"paper_id": "p1"}\n{oops\n'), "invalid JSON"),
    Case("metadata-no-id", _write("paper_metadata.jsonl", '{"title": "x"}\n'), "string paper_id"),
    Case("metadata-not-utf8", _write("paper_metadata.jsonl", b'{"paper_id": "p\xff"}\n'), "UTF-8"),
    # -- silent drops ---------------------------------------------------------------------------
    Case("human-no-reviews", _human(lambda d: d.pop("reviews")), "'reviews'"),
    Case("human-reviews-dict", _human(lambda d: _set(d, "reviews", {"a": 1})), "expected a list"),
    Case("human-file-list", _write("human_reviews/p1.json", "[1, 2]"), "expected a JSON object"),
    Case("human-truncated", _write("human_reviews/p1.json", '{"reviews": [{"Summ'), "invalid JSON"),
    Case("human-empty-entry", _human(lambda d: d["reviews"].append({"Summary": "", "Weaknesses": " "})),
         "has no text", kind="skip"),
    Case("human-summary-int", _human(lambda d: _set(d["reviews"][0], "Summary", 5)), "expected text, got int"),
    Case("human-weakness-object", _human(lambda d: _set(d["reviews"][0], "Weaknesses", {"a": "b"})),
         "expected text, got dict"),
    Case("sea-empty", _write("sea/p1.txt", ""), "no review text", validate_fragment="empty"),
    Case("sea-not-utf8", _write("sea/p1.txt", b"**Summary:**\n\xff"), "not valid UTF-8"),
    Case("reviewer2-only-think", _write("reviewer2/p1.txt", "<think>just thinking</think>"), "no review text"),
    Case("tree-review-not-string", _write("tree/p1_review.json", '{"full_review": 7}'), "full_review"),
    Case("review-of-paper-without-text", _write("sea/zz.txt", "**Summary:**\nA review.\n"), "has no",
         validate_fragment="no readable text"),
    Case("unknown-venue-folder", lambda root, tmp: (root / "NeurIPS2024" / "papers").mkdir(parents=True),
         "not a known venue folder"),
    Case("byo-named-treereview", lambda root, tmp: (v(root) / "TreeReview").mkdir() or
         (v(root) / "TreeReview" / "reviews.jsonl").write_text('{"paper_id": "p1", "text": "x"}\n'),
         "may not reuse a built-in system name"),
    Case("byo-reviewer-id-list", _byo_row('{"paper_id": "p1", "reviewer_id": ["a", "b"], "text": "A review."}'),
         "reviewer_id"),
    Case("byo-bad-json", _byo_row('{"paper_id": "p1", "text": '), "invalid JSON"),
    Case("byo-not-object", _byo_row("[1, 2, 3]"), "expected an object"),
    Case("byo-no-paper-id", _byo_row('{"text": "A review."}'), "paper_id"),
    Case("byo-no-text", _byo_row('{"paper_id": "p1", "sections": []}'), "no review text"),
    Case("byo-not-utf8", _byo_row(b'{"paper_id": "p1", "text": "\xff"}'), "UTF-8"),
    Case("byo-sections-not-list", _byo_row('{"paper_id": "p1", "sections": "x"}'), "expected a list"),
    Case("byo-scores-not-object", _byo_row('{"paper_id": "p1", "text": "A review.", "scores": [1]}'),
         "scores"),
]


def _build(case: Case, tmp_path: Path) -> Path:
    root = layout(tmp_path)
    case.make(root, tmp_path)
    return root


def _messages(items: list[LayoutProblem]) -> str:
    return "\n".join(str(p) for p in items)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_validate_names_it(case: Case, tmp_path: Path) -> None:
    root = _build(case, tmp_path)
    skips: list[LayoutProblem] = []
    problems = validate_layout(root, require_all_systems=False, skips=skips)
    found = _messages(problems if case.kind == "problem" else skips)
    assert (case.validate_fragment or case.fragment) in found, _messages(problems + skips)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_evaluate_inputs_name_it_and_keep_the_rest(case: Case, tmp_path: Path) -> None:
    root = _build(case, tmp_path)
    inputs = collect_inputs(LayoutSource(root))
    found = "\n".join(i["error"] for i in inputs.issues if i["kind"] == ("input" if case.kind == "problem" else "skip"))
    assert case.fragment in found, inputs.issues
    # nothing from outside the data root was read as a paper or a review
    for item in inputs.items:
        assert SECRET not in item.paper.full_text and SECRET not in item.paper.title
        for reviews in item.reviews.values():
            assert all(SECRET not in r.text for r in reviews)
    # the other papers still load, with their reviews
    loaded = {(i.venue, i.paper.paper_id) for i in inputs.items}
    assert ("ICML2025", "m1") in loaded and ("ICLR2024", "p1") in loaded

"""OpenAIReview perturbation rows: hashes, licence flags, offline review_input, bad lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prism_review.data.perturbation import PerturbationReader, load_perturbations, sha256_text
from prism_review.data.tokens import cl100k, count_tokens, first_tokens
from prism_review.guards.errors import DataError
from prism_review.testing.shared import SHARED

DEV = Path(f"{SHARED}/data/perturbation/dev.jsonl")
CLEAN = "We prove $\\left(a\\right)$ holds.\u2028Then x = 2 for all n."
# the JSON-escaping accident: "\right" became a carriage return + "ight"; it must survive as is
PERTURBED = "We prove $\\left(a\rig" + "ht)$ holds.\u2028Then x = 3 for all n."


def hub_row(**over: Any) -> dict[str, Any]:
    """A row in the hub dataset's shape (datasets.md §3)."""
    row: dict[str, Any] = {
        "id": "2401.00001v1__surface",
        "arxiv_id": "2401.00001v1",
        "title": "A paper",
        "domain": "math",
        "primary_category": "math.PR",
        "paper_type": "theoretical",
        "error_type": "surface",
        "error_category": "Surface",
        "in_frontier_subset": True,
        "license": "CC BY 4.0",
        "text_included": True,
        "clean_paper": CLEAN,
        "perturbed_paper": PERTURBED,
        "review_input": PERTURBED,
        "clean_sha256": sha256_text(CLEAN),
        "perturbed_sha256": sha256_text(PERTURBED),
        "review_input_sha256": sha256_text(PERTURBED),
        "n_perturbations": 1,
        "n_scored": 1,
        "perturbations": [
            {
                "perturbation_id": "P000",
                "error_subtype": "numeric_parameter",
                "original": "x = 2",
                "perturbed": "x = 3",
                "offset": CLEAN.index("x = 2"),
                "why_wrong": "The derivation gives 2.",
                "verifier_quote": "x = 3",
                "verifier_reason": "contradicts the proof",
                "scored": True,
            }
        ],
    }
    row.update(over)
    return row


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for r in rows:
            fh.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
    return path


def test_tokenizer_is_offline_cl100k() -> None:
    assert cl100k().encode("hello world") == [15339, 1917]
    assert count_tokens("hello world") == 2
    assert first_tokens("hello world", 1) == "hello"
    assert first_tokens("hello world", 5) == "hello world"


def test_hub_rows_verify_and_keep_carriage_return(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [hub_row()])
    reader = PerturbationReader(path)
    (row,) = list(reader)
    assert "\rig" in row.perturbed_paper and "\u2028" in row.perturbed_paper  # type: ignore[operator]
    assert row.hash_mismatches == [] and row.offset_mismatches == []
    assert not row.text_withheld and not row.review_input_rebuilt
    assert row.perturbations[0].offset == 38 and row.scored_perturbations
    assert reader.counts == {"rows": 1}


def test_hash_mismatch_is_flagged_or_fatal(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [hub_row(perturbed_sha256="0" * 64)])
    reader = PerturbationReader(path)
    (row,) = list(reader)
    assert row.hash_mismatches == ["perturbed_paper"] and reader.counts["hash_mismatch"] == 1
    with pytest.raises(DataError) as exc:
        list(PerturbationReader(path, strict=True))
    assert exc.value.field == "perturbed_paper" and "2401.00001v1__surface" in str(exc.value)


def test_licence_withheld_rows_are_flagged_not_rebuilt(tmp_path: Path) -> None:
    empty = hub_row(text_included=False, clean_paper="", perturbed_paper="", review_input="")
    path = write_jsonl(tmp_path / "p.jsonl", [empty])
    reader = PerturbationReader(path)
    (row,) = list(reader)
    assert row.text_withheld and row.review_input == "" and not row.review_input_rebuilt
    assert reader.counts["text_withheld"] == 1 and row.hash_mismatches == []


def test_review_input_rebuilt_to_13000_tokens(tmp_path: Path) -> None:
    long_text = "word " * 13_500
    row = hub_row(perturbed_paper=long_text, review_input=None, perturbed_sha256=None)
    row["perturbations"][0]["offset"] = None
    reader = PerturbationReader(write_jsonl(tmp_path / "p.jsonl", [row]))
    (got,) = list(reader)
    assert got.review_input_rebuilt and reader.counts["review_input_rebuilt"] == 1
    assert count_tokens(got.review_input or "") == 13_000
    assert long_text.startswith(got.review_input or "x")


def test_offset_mismatch_is_flagged(tmp_path: Path) -> None:
    row = hub_row()
    row["perturbations"][0]["offset"] = 0
    (got,) = list(PerturbationReader(write_jsonl(tmp_path / "p.jsonl", [row])))
    assert got.offset_mismatches == ["P000"]


def test_bad_lines_are_counted(tmp_path: Path) -> None:
    no_id = hub_row()
    del no_id["id"]
    wrong_type = hub_row(id="wt", perturbations="not a list")
    path = write_jsonl(
        tmp_path / "p.jsonl", [hub_row(), '{"id": "cut", "arxiv', no_id, wrong_type, "[1]", ""]
    )
    with open(path, "ab") as fh:
        fh.write(b'{"id": "caf\xe9"}\n')
    reader = PerturbationReader(path)
    assert [r.id for r in reader] == ["2401.00001v1__surface"]
    msgs = [(s.record, s.field) for s in reader.skips.skips]
    assert msgs == [
        ("line 2", None),
        ("line 3", "id"),
        ("wt", "perturbations"),
        ("line 5", None),
        ("line 7", None),
    ]
    assert "not valid UTF-8" in reader.skips.skips[-1].message


def test_parquet_rows(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    pq.write_table(
        pa.Table.from_pylist(
            [
                hub_row(),
                hub_row(
                    id="b", text_included=False, clean_paper="", perturbed_paper="", review_input=""
                ),
            ]
        ),
        path,
    )
    reader = PerturbationReader(path)
    rows = list(reader)
    assert [r.text_withheld for r in rows] == [False, True]
    assert "\r" in (rows[0].perturbed_paper or "")


@pytest.mark.skipif(not DEV.is_file(), reason="shared dev file not present")
def test_shared_dev_file() -> None:
    rows = load_perturbations(DEV)
    assert len(rows) == 90
    assert sum(len(r.perturbations) for r in rows) == 1403
    assert {r.error_category for r in rows} == {"Surface", "Claim", "Experimental"}
    assert all(not r.offset_mismatches for r in rows)
    assert all(r.review_input_rebuilt for r in rows)

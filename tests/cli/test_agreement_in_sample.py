"""Figures on records the offline judge was fitted on are in-sample, whole file or part of one.

Before, only a byte-identical copy of a trained-on file was recognised: its first 30 lines, or
the file re-serialised, gave in-sample figures presented as agreement (issue 27)."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from prism_review.agreement.in_sample import build, offline_training_overlap, trained_records
from prism_review.cli import app
from prism_review.testing.shared import DATA

SUBSTAN = DATA / "labels/substanreview/train.jsonl"
needs_substan = pytest.mark.skipif(not SUBSTAN.is_file(), reason="shared SubstanReview labels not present")


def _rows() -> list[dict]:
    return [json.loads(x) for x in SUBSTAN.read_text(encoding="utf-8").split("\n") if x.strip()]


def test_the_shipped_record_list_is_the_shared_files_records() -> None:
    if not (DATA / "labels").is_dir():
        pytest.skip("shared labels not present")
    assert {d: sorted(k) for d, k in trained_records().items()} == build(DATA)


@needs_substan
def test_part_of_a_trained_on_file_is_in_sample_and_its_dev_slice_is_not(tmp_path) -> None:
    rows = _rows()[:30]  # most fitted on, a few of the held-out dev slice (id % 5 == 0)
    fitted = sum(r["id"] % 5 != 0 for r in rows)
    assert 0 < fitted < 30
    part = tmp_path / "part.jsonl"
    part.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    why = offline_training_overlap(part)
    assert why is not None and why.startswith(f"{fitted} of its 30 records are from SubstanReview train")
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in rows if r["id"] % 5 == 0), encoding="utf-8")
    assert offline_training_overlap(dev) is None  # never fitted on: held-out figures
    shuffled = tmp_path / "reserialised.jsonl"  # keys reordered, other spacing, lines shuffled
    again = [dict(reversed(list(r.items()))) for r in rows]
    random.Random(1).shuffle(again)
    shuffled.write_text("".join(json.dumps(r, indent=None, separators=(", ", ": ")) + "\n"
                                for r in again), encoding="utf-8")
    assert offline_training_overlap(shuffled) == why


@needs_substan
def test_agreement_flags_a_part_of_a_trained_on_file(tmp_path) -> None:
    rows = _rows()[:30]
    fitted = sum(r["id"] % 5 != 0 for r in rows)
    part = tmp_path / "part.jsonl"
    part.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = CliRunner().invoke(app, ["agreement", "--dataset", "substanreview", "--file", str(part),
                                   "--json"])
    assert res.exit_code == 0, res.output
    assert ("in-sample: the offline judge was trained or tuned on this file "
            f"({fitted} of its 30 records") in res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert out["warning"].startswith("in-sample:") and out["n.reviews"] == 30  # --json says so too

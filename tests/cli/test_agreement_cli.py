"""``prism agreement`` through the CLI on the shared human-labelled files (offline judge)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.testing.shared import DATA


def _needs(*files: str):
    """Skip where the shared labels are not beside the clone (a researcher's fresh machine)."""
    missing = [f for f in files if not (DATA / f).is_file()]
    return pytest.mark.skipif(bool(missing), reason=f"shared labels not present: {missing}")


def _run(*args: str):
    return CliRunner().invoke(app, ["agreement", *args])


@pytest.mark.parametrize(
    ("dataset", "file", "keys"),
    [
        pytest.param("disapere", "labels/disapere/dev.jsonl",
                     ["disapere.role.macro_f1", "disapere.aspect3.macro_f1"],
                     marks=_needs("labels/disapere/dev.jsonl")),
        pytest.param("revutil", "labels/revutil/dev.jsonl",
                     ["revutil.actionability.spearman", "revutil.tone.accuracy"],
                     marks=_needs("labels/revutil/dev.jsonl")),
        pytest.param(
            "perturbation-verifier",
            "perturbation/verifier_gold_dev.jsonl",
            ["perturbation_verifier.validity.accuracy", "perturbation_verifier.validity.macro_f1"],
            marks=_needs("perturbation/verifier_gold_dev.jsonl"),
        ),
    ],
)
def test_agreement_json_keys(dataset, file, keys):
    res = _run("--dataset", dataset, "--file", str(DATA / file), "--json", "--limit", "40")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for k in keys:
        assert isinstance(out[k], float) and -1.0 <= out[k] <= 1.0
    assert any(k.startswith("n.") for k in out)


@_needs("labels/revutil/dev.jsonl", "labels/disapere/dev.jsonl")
def test_in_sample_files_are_flagged_and_held_out_ones_are_not():
    trained = _run("--dataset", "revutil", "--file", str(DATA / "labels/revutil/dev.jsonl"), "--json", "--limit", "5")
    assert "in-sample" in json.loads(trained.stdout)["warning"]
    clean = _run("--dataset", "disapere", "--file", str(DATA / "labels/disapere/dev.jsonl"), "--json", "--limit", "5")
    assert "warning" not in json.loads(clean.stdout)


def test_unknown_dataset_and_missing_file(tmp_path):
    labels = tmp_path / "labels.jsonl"
    labels.write_text("{}\n")
    assert _run("--dataset", "nope", "--file", str(labels)).exit_code == 2
    assert _run("--dataset", "revutil", "--file", str(tmp_path / "missing.jsonl")).exit_code == 2


def test_bad_judge_spec_is_a_message_not_a_traceback(tmp_path):
    labels = tmp_path / "labels.jsonl"  # the judge is refused before any label is read
    labels.write_text("{}\n")
    res = _run("--dataset", "revutil", "--file", str(labels), "--judge", "bogus/x")
    assert res.exit_code == 2 and res.exception is not None and isinstance(res.exception, SystemExit)
    assert "unknown judge 'bogus/x'" in res.stderr

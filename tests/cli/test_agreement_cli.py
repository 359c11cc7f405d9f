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


def test_all_keeps_in_sample_figures_apart_from_held_out_ones(tmp_path):
    """issue 27: on a file the offline judge was tuned on, --dataset all prints the grouped-CV
    figures in its table and the in-sample ones only in a separate, labelled block; --json says
    which is which."""
    import shutil

    from prism_review.testing.shared import DATA

    src = DATA / "perturbation/verifier_gold_dev.jsonl"
    if not src.is_file():
        pytest.skip("shared perturbation gold not present")
    (tmp_path / "perturbation").mkdir()
    shutil.copy(src, tmp_path / "perturbation/verifier_gold_dev.jsonl")  # the tuned-on file
    runner = CliRunner()
    res = runner.invoke(app, ["agreement", "--dataset", "all", "--file", str(tmp_path), "--json"])
    assert res.exit_code == 1  # the other standard files are missing
    out = json.loads(res.stdout)
    assert "datasets" not in out
    held, ins = out["held_out"]["perturbation-verifier"], out["in_sample"]["perturbation-verifier"]
    assert held["protocol"].startswith("grouped 5-fold CV by paper")
    assert "perturbation_verifier.cv.validity.accuracy" in held
    assert not any(k.startswith("perturbation_verifier.validity") for k in held)
    assert "in-sample" in ins["warning"] and "perturbation_verifier.validity.accuracy" in ins
    text = runner.invoke(app, ["agreement", "--dataset", "all", "--file", str(tmp_path)]).stdout
    block = text.index("== In-sample figures")
    assert text.index("perturbation_verifier.cv.validity.accuracy") < block
    assert text.index("perturbation_verifier.validity.accuracy ") > block


def test_all_gives_the_substanreview_dev_slice_figures(tmp_path):
    """The held-out SubstanReview figures come from its dev slice (ids divisible by 5), written by
    run-time code: after the training code moved out of judge/, this path imported a module
    that no longer existed (an ImportError in `prism agreement --dataset all`, unseen by tests)."""
    import shutil

    src = DATA / "labels/substanreview/train.jsonl"
    if not src.is_file():
        pytest.skip("shared SubstanReview labels not present")
    (tmp_path / "labels/substanreview").mkdir(parents=True)
    shutil.copy(src, tmp_path / "labels/substanreview/train.jsonl")  # the tuned-on file
    res = _run("--dataset", "all", "--file", str(tmp_path), "--json")
    assert res.exit_code == 1, res.output  # the other standard files are missing
    out = json.loads(res.stdout)
    held, ins = out["held_out"]["substanreview"], out["in_sample"]["substanreview"]
    n_dev = sum(1 for line in src.read_text(encoding="utf-8").split("\n")
                if line.strip() and json.loads(line)["id"] % 5 == 0)
    assert held["n.reviews"] == n_dev < ins["n.reviews"], (held, ins)
    assert "substanreview.r_premise.predicted" in held and held["protocol"]

"""The judge's files in the run folder are set in one place (``run_config.with_run_paths``), for
``prism evaluate`` and for :func:`run_evaluation` called without a judge alike (issue 29: the two
used to set them each on their own)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prism_review.pipelines.run_config import EvalOptions, with_run_paths


def test_audit_and_batch_paths_go_in_the_run_folder(tmp_path: Path) -> None:
    llm = EvalOptions(out=tmp_path, judge="openai/x", judge_options={"batch": True, "rpm": 5})
    paths = with_run_paths(llm, tmp_path).judge_options
    assert paths == {"batch": tmp_path / "batches.json", "rpm": 5, "audit_path": tmp_path / "audit.jsonl"}
    assert llm.judge_options == {"batch": True, "rpm": 5}  # the options given are not changed
    mine = tmp_path / "elsewhere.jsonl"
    given = EvalOptions(out=tmp_path, judge="openai/x", judge_options={"audit_path": mine})
    assert with_run_paths(given, tmp_path).judge_options["audit_path"] == mine  # a given log is kept
    dry = EvalOptions(out=tmp_path, judge="openai/x", judge_options={"dry_run": True})
    assert "audit_path" not in with_run_paths(dry, tmp_path).judge_options  # nothing is called
    assert with_run_paths(EvalOptions(out=tmp_path), tmp_path).judge_options == {}  # offline


def test_run_evaluation_without_a_judge_audits_into_its_run_folder(llm_server: Any, tmp_path: Path,
                                                                   monkeypatch: Any) -> None:
    from prism_review.pipelines.runner import run_evaluation

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    opts = EvalOptions(out=tmp_path / "run", judge=f"openai-compatible/m@{llm_server.base_url}",
                       judge_options={"no_cache": True}, dimensions=["depth"], limit=1, venues=["ICLR2024"])
    result = asyncio.run(run_evaluation(opts))
    assert result.units_done > 0 and result.units_failed == 0
    audit = (tmp_path / "run" / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(audit) == result.manifest["totals"]["judge_stats"]["calls"] > 0

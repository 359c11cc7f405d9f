"""A prompt edit changes the LLM cache key and the run's config hash (issue 30).

The cache key holds the messages, so an edited prompt is asked again; the config hash holds
``LLMJudge.describe()["prompts"]``, a digest of the prompt modules, so a run folder made with
other prompts is refused on resume, as for any other judge change.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from prism_review.judge import prompt_digest
from prism_review.judge.novelty import prompts as novelty_prompts
from prism_review.judge.novelty.verdict import CandidateText, VerdictInput, VerdictStep
from prism_review.pipelines.run_config import (
    EvalOptions,
    RunSettingsError,
    config_hash,
    start_manifest,
)

REPLY = {"review_sentence_id": "C1", "related_paper_id": "P1", "classification": {"claim": 1, "proof": 0},
         "stance_alignment": "aligned", "calibration": "accurate", "score": 2, "label": "SUPPORTED",
         "explanation": "ok"}


def _inp() -> VerdictInput:
    return VerdictInput(claim_id="C1", claim="This is the same as prior work.", claim_stance="not_novel",
                        paper_context="We propose X.", candidate=CandidateText(cand_id="P1", text="X\nabout X"))


def test_every_module_that_builds_judge_messages_is_digested() -> None:
    root = prompt_digest.package_root()
    builders = {p.relative_to(root).as_posix() for p in (root / "judge").rglob("*.py")
                if "ChatMessage(" in p.read_text(encoding="utf-8") and p.name != "base.py"}
    prompt_modules = {p.relative_to(root).as_posix() for p in (root / "judge").rglob("prompt*.py")
                      if p.name != "prompt_digest.py"}
    assert builders | prompt_modules <= set(prompt_digest.PROMPT_FILES)


def test_a_prompt_edit_changes_the_digest(tmp_path: Path) -> None:
    root = prompt_digest.package_root()
    for rel in prompt_digest.PROMPT_FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, tmp_path / rel)
    same = prompt_digest.digest_files(tmp_path, prompt_digest.PROMPT_FILES)
    assert same == prompt_digest.digest_files(root, prompt_digest.PROMPT_FILES)
    target = tmp_path / "judge/novelty/prompts.py"
    target.write_text(target.read_text(encoding="utf-8").replace("Use only the texts given.",
                                                                 "Use only the texts given!"), encoding="utf-8")
    assert prompt_digest.digest_files(tmp_path, prompt_digest.PROMPT_FILES) != same


def test_the_config_hash_holds_the_prompt_digest_and_an_old_folder_is_refused(
        loopback_judge, monkeypatch, tmp_path: Path) -> None:
    judge = loopback_judge()
    opts = EvalOptions(out=tmp_path, judge="openai-compatible/test-model")
    from prism_review.llm.judge import CHECK_PROMPT, REPAIR_PROMPT

    assert judge.describe()["prompts"] == prompt_digest.prompts_fingerprint(REPAIR_PROMPT, CHECK_PROMPT)
    before = config_hash(opts, judge)
    monkeypatch.setattr("prism_review.llm.judge.prompts_fingerprint", lambda *extra: "edited-prompts")
    after = config_hash(opts, judge)
    assert after != before
    source = SimpleNamespace(path=tmp_path, kind="demo")
    with pytest.raises(RunSettingsError, match="other settings"):
        start_manifest(opts, tmp_path, judge, after, {"config_hash": before}, source, [])


async def test_a_prompt_edit_changes_the_cache_key(llm_server, loopback_judge, monkeypatch) -> None:
    llm_server.canned("novelty.verdict", REPLY)
    judge = loopback_judge()
    assert (await judge.run(VerdictStep(), _inp())).ok
    assert (await judge.run(VerdictStep(), _inp())).ok  # the same prompt: a cache hit
    assert len(llm_server.requests) == 1
    monkeypatch.setattr(novelty_prompts, "VERDICT_RULES", novelty_prompts.VERDICT_RULES + " Be brief.")
    assert (await judge.run(VerdictStep(), _inp())).ok
    assert len(llm_server.requests) == 2  # the edited prompt is asked again

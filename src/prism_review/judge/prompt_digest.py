"""A digest of the judge's prompt text, part of the LLM judge's config hash.

The LLM cache key already holds every message sent, so a prompt edit re-asks the model. A run
folder, though, is tied to its settings by the config hash (``pipelines/run_config.py``), which
held no prompt text: rows made with an earlier prompt could be resumed and mixed with new ones.
:func:`prompts_fingerprint` hashes the source of every module that holds prompt text or builds a
judge step's messages (and the LLM layer's re-ask texts, passed in by it), and ``LLMJudge.describe()`` records it,
so a run folder made with other prompts is refused on resume.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

#: package-relative modules whose text reaches a judge prompt: the prompt texts, the fence and
#: data rule, the flaw taxonomy, and every step module that assembles messages or re-ask reasons
PROMPT_FILES: tuple[str, ...] = (
    "judge/fence.py",
    "judge/depth/prompts.py",
    "judge/depth/steps.py",
    "judge/depth/analyse.py",
    "judge/novelty/prompts.py",
    "judge/novelty/claims.py",
    "judge/novelty/paper_side.py",
    "judge/novelty/verdict.py",
    "judge/novelty/verdict_review.py",
    "judge/flaws/prompts.py",
    "judge/flaws/taxonomy.py",
    "judge/flaws/steps.py",
    "judge/flaws/extend.py",
    "judge/constructiveness/prompt.py",
    "judge/constructiveness/arc.py",
    "judge/constructiveness/arc_batch.py",
)


def package_root() -> Path:
    """The installed ``prism_review`` package folder."""
    return Path(str(resources.files("prism_review")))


def digest_files(root: Path, files: Iterable[str], extra: Iterable[str] = ()) -> str:
    """Short sha256 over the names and bytes of ``files`` under ``root`` and the ``extra`` texts."""
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode())
        h.update((root / rel).read_bytes())
    for text in extra:
        h.update(text.encode())
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=4)
def prompts_fingerprint(*extra: str) -> str:
    """The digest of this installation's prompt text (module docstring); ``extra``: the LLM
    layer's own re-ask texts, which it passes in (``llm`` imports ``judge``, not the reverse)."""
    return digest_files(package_root(), PROMPT_FILES, extra)

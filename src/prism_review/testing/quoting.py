"""A loopback judge whose answers quote the prompt, for cost measurements (``bench_llm_cost.py``).

A schema-built reply (:mod:`~prism_review.testing.schema_fill`) fills ``novelty.paper``'s key
terms with random words, so retrieval finds fewer candidates than a model's terms would, and its
claim lists have one to three entries whatever the review says; a run's call and token counts
then depend on the filler, not on the texts. This responder answers the steps whose replies
decide how much work follows from the texts themselves:

* ``novelty.paper``: the paper side a careful reader copies out of the paper (the first sentence
  of the abstract, the "we propose" sentences or the contributions bullets, the abstract's most
  frequent phrases, named entities): :mod:`prism_review.judge.novelty.paper_side`'s deterministic
  extraction applied to the fenced paper, so the retrieval queries are the paper's own phrases;
* ``novelty.claims`` and the verdict steps: :mod:`~prism_review.testing.novelty_decisions`
  (the review's sentences with a novelty cue, each pair decided from its two texts);
* the flaw steps: :mod:`~prism_review.testing.flaw_decisions` (flaws quoted from the reviews);
* any other step: ``fallback(body)`` (the server's schema-built reply).

Every answer is a function of its own request, so the counts are deterministic and the same
under every protocol that asks the same questions.
"""

from __future__ import annotations

from typing import Any

from prism_review.judge.fence import fenced_blocks
from prism_review.judge.novelty.paper_side import (
    fallback_contributions,
    fallback_core_task,
    fallback_entities,
    fallback_key_terms,
    fallback_title,
)
from prism_review.judge.novelty.textprep import find_abstract
from prism_review.llm.parse import schema_name
from prism_review.testing import flaw_decisions, novelty_decisions
from prism_review.testing.step_responder import Responder, step_responder


def paper_side(user: str) -> dict[str, Any]:
    """``novelty.paper`` answered with phrases copied out of the fenced paper."""
    papers = fenced_blocks(user, "PAPER")
    titles = fenced_blocks(user, "TITLE")
    text = papers[0] if papers else ""
    title = fallback_title(text, titles[0] if titles else "")
    abstract = find_abstract(text)
    return {"core_task": fallback_core_task(abstract, title, text),
            "contributions": fallback_contributions(text, abstract),
            "key_terms": fallback_key_terms(abstract, text), "must_have_entities": fallback_entities(text)}


def responder(fallback: Responder) -> Responder:
    """A responder for :meth:`LLMServer.set_responder`: the steps above quote their prompt."""
    quoted = step_responder({schema_name("novelty.paper"): paper_side}, fallback)
    return novelty_decisions.responder(flaw_decisions.responder(quoted))

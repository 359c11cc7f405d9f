"""Reviewer systems: one module per system, each declaring its :class:`SystemSpec` as ``SPEC``.

* :mod:`.spec` — what a system is (folder, file patterns, loader, check, text policy,
  generation hooks); :mod:`.registry` — the specs by id, folder or label (``treereview`` lives in
  ``tree/``), discovered from this package and ``prism_review.systems`` entry points, or added
  with :func:`register_system`;
* the built-in systems :mod:`.human`, :mod:`.sea`, :mod:`.reviewer2`, :mod:`.treereview`,
  :mod:`.deepreview`, :mod:`.cyclereview`; :mod:`.byo` reads bring-your-own JSONL folders
  (docs/byo-format.md), each a system of its own registered when the layout finds it;
* :mod:`.text` — applies a dimension's review-text policy (:mod:`.text_policy`, declared by each
  dimension; clean default; the original's, for ``--compat``, is each system module's
  ``compat``, on the shared extractors of :mod:`.text_compat`).

Multi-reviewer LLM systems (DeepReview, CycleReview) yield simulated reviewer 1 as the Review
(``LLM_Reviewer``); the other simulated reviewers stay in ``Review.extra["simulated_reviewers"]``.
Adding a system: docs/extending.md, "Adding a reviewer system".
"""

from prism_review.systems.registry import get_system, register_system, unregister_system
from prism_review.systems.spec import GenerationHooks, Loaded, SystemSpec

__all__ = [
    "GenerationHooks",
    "Loaded",
    "SystemSpec",
    "get_system",
    "register_system",
    "unregister_system",
]

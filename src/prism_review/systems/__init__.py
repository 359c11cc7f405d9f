"""Reviewer systems: one adapter per system turning its files into :class:`Review` records.

* :mod:`.registry` — system ids and folders (``treereview`` lives in ``tree/``);
* :mod:`.adapters` — where each built-in system's file for a paper is and how it is read
  (:mod:`.human`, :mod:`.sea`, :mod:`.reviewer2`, :mod:`.treereview`, :mod:`.deepreview`,
  :mod:`.cyclereview`); :mod:`.byo` reads bring-your-own JSONL folders (docs/byo-format.md);
* :mod:`.text` — applies a dimension's review-text policy (:mod:`.text_policy`, declared by each
  dimension; clean default, ``compat`` original in :mod:`.text_compat`).

Multi-reviewer LLM systems (DeepReview, CycleReview) yield simulated reviewer 1 as the Review
(``LLM_Reviewer``); the other simulated reviewers stay in ``Review.extra["simulated_reviewers"]``.
"""

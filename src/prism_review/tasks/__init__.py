"""Prediction tasks on review data: acceptance, review scores, perturbation error recall.

* :mod:`prism_review.tasks.acceptance` — accept/reject prediction (rating threshold, majority
  class, LLM), with the accept-bias rule for ICML 2025 / NeurIPS 2025;
* :mod:`prism_review.tasks.scores` — per-review and per-paper rating prediction;
* :mod:`prism_review.tasks.perturbation` — injected-error recall of quote-anchored comments;
* :mod:`prism_review.tasks.metrics` — the pure metrics;
* :mod:`prism_review.tasks.sources` — task inputs from the PRISM layout or ProReviewer.
"""

"""Novelty Assessment judge steps: paper side, review claims, claim-vs-prior-work verdicts."""

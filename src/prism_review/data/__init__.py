"""Loaders for the PRISM corpus, the evaluation layout, ProReviewer and the perturbation set."""

from prism_review.guards.errors import DataError

__all__ = ["DataError"]

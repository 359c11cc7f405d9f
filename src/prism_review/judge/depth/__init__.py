"""Depth of Analysis judge steps, prompts and the offline judge (model, features; trained by :mod:`prism_review.training.depth`)."""

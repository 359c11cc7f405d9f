"""Depth of Analysis judge steps, prompts and the offline judge (model, features, training)."""

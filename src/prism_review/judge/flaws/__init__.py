"""Flaw Identification & Prioritization judge steps (spec §6): consolidate, validate, map."""

from prism_review.judge.flaws.steps import ConsolidateStep, MapStep, ValidateStep

__all__ = ["ConsolidateStep", "MapStep", "ValidateStep"]

"""Macro-F1 over (gold, predicted) pairs, for the DoA agreement checks and training report."""

from __future__ import annotations

from collections.abc import Sequence


def _f1(pairs: Sequence[tuple[str, str]], label: str) -> float:
    tp = sum(1 for g, p in pairs if g == label and p == label)
    fp = sum(1 for g, p in pairs if g != label and p == label)
    fn = sum(1 for g, p in pairs if g == label and p != label)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def macro_f1(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> float | None:
    """Mean F1 over ``labels`` (predictions outside them count as misses); None if no pairs.

    Same value as ``sklearn.metrics.f1_score(..., labels=labels, average="macro")``.
    """
    if not pairs:
        return None
    return sum(_f1(pairs, lab) for lab in labels) / len(labels)


def per_class_f1(
    prefix: str, pairs: Sequence[tuple[str, str]], labels: Sequence[str]
) -> dict[str, float | None]:
    """``{prefix}.f1.<label>`` for every label (None if no pairs)."""
    return {f"{prefix}.f1.{lab.lower()}": (_f1(pairs, lab) if pairs else None) for lab in labels}

"""Shared scoring for the flaw-validity agreement datasets (accuracy, macro-F1, counts)."""

from __future__ import annotations

from collections.abc import Sequence

from prism_review.judge.depth.scoring import macro_f1


def accuracy_macro_f1(
    gold: Sequence[str], pred: Sequence[str]
) -> tuple[float | None, float | None]:
    """Accuracy and macro-F1 over the labels present in gold or predictions (None when empty).

    A class's F1 is 0 when it has no true positives; classes absent from both lists are ignored.
    """
    if not gold:
        return None, None
    pairs = list(zip(gold, pred, strict=True))
    acc = sum(g == p for g, p in pairs) / len(gold)
    f1 = macro_f1(pairs, sorted(set(gold) | set(pred)))
    assert f1 is not None  # pairs is not empty
    return round(acc, 4), round(f1, 4)

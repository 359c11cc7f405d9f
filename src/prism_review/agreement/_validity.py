"""Shared scoring for the flaw-validity agreement datasets (accuracy, macro-F1, counts)."""

from __future__ import annotations

from collections.abc import Sequence


def accuracy_macro_f1(
    gold: Sequence[str], pred: Sequence[str]
) -> tuple[float | None, float | None]:
    """Accuracy and macro-F1 over the labels present in gold or predictions (None when empty).

    A class's F1 is 0 when it has no true positives; classes absent from both lists are ignored.
    """
    if not gold:
        return None, None
    labels = sorted(set(gold) | set(pred))
    acc = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)
    f1s = []
    for lab in labels:
        tp = sum(g == lab and p == lab for g, p in zip(gold, pred, strict=True))
        fp = sum(g != lab and p == lab for g, p in zip(gold, pred, strict=True))
        fn = sum(g == lab and p != lab for g, p in zip(gold, pred, strict=True))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return round(acc, 4), round(sum(f1s) / len(f1s), 4)

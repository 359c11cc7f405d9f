"""A bounded per-text cache of embedding vectors, shared by the offline judge's two encoders.

Both the depth sentence encoder and the novelty embedder encode each distinct text once and keep
its vector; the oldest entries go once the cache holds more than ``size`` texts, and only after a
call's rows are taken (so a call larger than the cache still gets all its vectors).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np


class VectorCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self._vectors)

    def has(self, text: str) -> bool:
        return text in self._vectors

    def clear(self) -> None:
        self._vectors.clear()

    def update(self, vectors: dict[str, np.ndarray]) -> None:
        """Add precomputed vectors (a training run reusing a saved cache)."""
        self._vectors.update(vectors)

    def items(self) -> list[tuple[str, np.ndarray]]:
        return list(self._vectors.items())

    def rows(
        self,
        texts: Sequence[str],
        encode: Callable[[list[str]], np.ndarray],
        *,
        skip: Callable[[str], bool] | None = None,
        fill: np.ndarray | None = None,
    ) -> np.ndarray:
        """One row per text: cached, else from one ``encode`` call over the missing texts.
        Texts for which ``skip`` is true are not encoded and get ``fill``."""
        wanted = (lambda t: not skip(t)) if skip is not None else (lambda t: True)
        missing = list(dict.fromkeys(t for t in texts if wanted(t) and t not in self._vectors))
        if missing:
            for t, v in zip(missing, encode(missing), strict=True):
                self._vectors[t] = v
        out = np.vstack([self._vectors[t] if wanted(t) else fill for t in texts])  # type: ignore[misc]
        while len(self._vectors) > self.size:  # evict only after this call's rows are taken
            self._vectors.popitem(last=False)
        return out

"""The offline DoA judge's trained model: numpy inference over JSON + npz artefacts (no pickle).

One shared TF-IDF vocabulary (word and character n-grams, :mod:`.features`) plus dense hand
and sentiment features feed four linear heads:

* ``argumentative`` — is a sentence an argumentative unit (vs. summary, heading, thanks …);
* ``role`` — Premise vs Claim;
* ``aspect`` — Soundness / Clarity / Contribution / Other;
* ``grounding`` — 0 / 1 / 2.

A head may be *contextual* (``meta["heads"][h]["context"]``): its coefficient rows then hold
three sparse blocks — the unit's own TF-IDF vector, the previous unit's and the next unit's
(both scaled by ``hyperparameters.context_weight``; zero at the review's edges) — before the
dense block. The neighbours are the units of the same call, in order.

The artefacts are written by :mod:`prism_review.training.depth.train` and loaded lazily once per
process (:func:`load_model`).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.judge.depth.features import CHAR_NGRAMS, _tokens, context_hand
from prism_review.judge.sentiment import polarity

MODEL_DIR = "resources/models/depth"
META_FILE = "model.json"
WEIGHTS_FILE = "weights.npz"
HEADS = ("argumentative", "role", "aspect", "grounding")


def sentiment_features(text: str) -> list[float]:
    """VADER intensity (|compound|, pos, neg, neu): evaluative sentences carry polarity."""
    compound, pos, neg, neu = polarity(text)
    return [abs(compound), pos, neg, neu]


@lru_cache(maxsize=200_000)
def _token_char_terms(tok: str) -> tuple[str, ...]:
    """:func:`.features.char_terms` of one token: a word's n-grams depend on the word alone."""
    w = " " + tok + " "
    lw = len(w)
    lo, hi = CHAR_NGRAMS
    return tuple("c:" + w[i : i + n] for n in range(lo, min(hi, lw) + 1) for i in range(lw - n + 1))


def fast_unit_terms(text: str) -> list[str]:
    """:func:`.features.unit_terms` with each word's character n-grams memoised: the same terms
    in the same order (the TF-IDF sums run in that order), about half the time."""
    toks = _tokens(text)
    out = ["w:" + t for t in toks]
    out.extend("w:" + a + " " + b for a, b in zip(toks, toks[1:], strict=False))
    for t in toks:
        out.extend(_token_char_terms(t))
    return out


@lru_cache(maxsize=4096)
def _sublinear_tf(count: int) -> float:
    return 1.0 + math.log(count)


#: ``_sublinear_tf`` of 0 … 1023 (entry 0 unused), the same math.log values gathered by numpy
_TF_TABLE = np.asarray([0.0] + [1.0 + math.log(c) for c in range(1, 1024)], dtype=np.float64)


def dense_features(texts: Sequence[str], index: int) -> list[float]:
    """Hand, context and sentiment features of unit ``index`` among ``texts``."""
    return context_hand(texts, index) + sentiment_features(texts[index])


@dataclass
class Head:
    """One linear classifier over the shared features."""

    classes: list[str]
    coef: np.ndarray  # (k, n_features) ; k = 1 for binary heads
    intercept: np.ndarray  # (k,)


def _proba(scores: np.ndarray, n_classes: int) -> np.ndarray:
    """Class probabilities from decision scores, as scikit-learn's LogisticRegression gives."""
    if n_classes == 2:
        p1 = 1.0 / (1.0 + np.exp(-scores[:, 0]))
        return np.stack([1.0 - p1, p1], axis=1)
    s = scores - scores.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


class DepthModel:
    """Vocabulary, idf, dense-feature scaling and the four heads."""

    def __init__(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.meta = meta
        self.vocab: dict[str, int] = {t: i for i, t in enumerate(meta["vocabulary"])}
        self.idf = arrays["idf"].astype(np.float64)
        self.dense_scale = arrays["dense_scale"].astype(np.float64)
        self.thresholds: dict[str, float] = meta.get("thresholds", {})
        self.heads = {
            h: Head(
                classes=meta["heads"][h]["classes"],
                coef=arrays[f"{h}_coef"].astype(np.float64),
                intercept=arrays[f"{h}_intercept"].astype(np.float64),
            )
            for h in HEADS
        }
        ns = len(self.vocab)
        self.context_weight = float(meta.get("hyperparameters", {}).get("context_weight", 0.0))
        own, prev, nxt, dense = [], [], [], []
        for h in HEADS:
            c = self.heads[h].coef
            own.append(c[:, :ns])
            if meta["heads"][h].get("context"):
                prev.append(c[:, ns : 2 * ns])
                nxt.append(c[:, 2 * ns : 3 * ns])
                dense.append(c[:, 3 * ns :])
            else:
                prev.append(np.zeros_like(c[:, :ns]))
                nxt.append(np.zeros_like(c[:, :ns]))
                dense.append(c[:, ns:])
        # all heads stacked: sparse blocks transposed for row gathers, dense part as is
        # (ns, 3K): own | previous-unit | next-unit blocks side by side, one gather per unit
        self._w_sparse = np.ascontiguousarray(
            np.concatenate([np.concatenate(b, axis=0).T for b in (own, prev, nxt)], axis=1)
        )
        self._w_dense = np.concatenate(dense, axis=0)  # (K, nd)
        self._b = np.concatenate([self.heads[h].intercept for h in HEADS])
        self._cache: dict[str, tuple[np.ndarray, np.ndarray, list[float]]] = {}
        self._tok_index: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._alone: dict[str, np.ndarray] = {}
        self._slices: dict[str, slice] = {}
        k = 0
        for h in HEADS:
            r = self.heads[h].coef.shape[0]
            self._slices[h] = slice(k, k + r)
            k += r

    def _cached(self, text: str) -> tuple[np.ndarray, np.ndarray, list[float]]:
        """Sparse vector and sentiment of ``text``, memoised (segment and classify share them)."""
        hit = self._cache.get(text)
        if hit is None:
            if len(self._cache) > 50_000:
                self._cache.clear()
            idx, v = self.sparse_vector(text)
            hit = (idx, v, sentiment_features(text))
            self._cache[text] = hit
        return hit

    def _token_index(self, tok: str) -> tuple[int, tuple[int, ...]]:
        """Vocabulary index of the token's word term (-1: unknown) and of its known character
        n-grams in :func:`_token_char_terms` order, memoised per token."""
        hit = self._tok_index.get(tok)
        if hit is None:
            if len(self._tok_index) > 200_000:
                self._tok_index.clear()
            get = self.vocab.get
            chars = tuple(j for j in map(get, _token_char_terms(tok)) if j is not None)
            hit = (get("w:" + tok, -1), chars)
            self._tok_index[tok] = hit
        return hit

    def sparse_vector(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Indices and l2-normalised sublinear TF-IDF values of ``text``'s known terms.

        The terms of :func:`fast_unit_terms` are mapped to vocabulary indices token by token
        (memoised) and counted as indices: a term and its index are one to one, so the known
        terms come out in the same first-occurrence order with the same counts as counting
        the term strings, and the float64 products and norm are the same operations."""
        toks = _tokens(text)
        info = [self._token_index(t) for t in toks]
        get = self.vocab.get
        seq = [u for u, _ in info]
        seq.extend(get("w:" + a + " " + b, -1) for a, b in zip(toks, toks[1:], strict=False))
        for _, chars in info:
            seq.extend(chars)
        counts = Counter(seq)
        counts.pop(-1, None)
        ia = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        c = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
        if len(c) and c.max() >= len(_TF_TABLE):
            tf = np.asarray([_sublinear_tf(int(x)) for x in c], dtype=np.float64)
        else:
            tf = _TF_TABLE[c]
        # elementwise float64 products, exactly the per-term (1 + log c) · idf of before
        v = tf * self.idf[ia]
        if len(ia):
            v = v / np.linalg.norm(v)
        return ia, v

    def dense_part(self, texts: Sequence[str], index: int) -> np.ndarray:
        """Scaled dense features (hand, section, context cues, sentiment) of unit ``index``."""
        senti = self._cached(texts[index])[2]
        return np.asarray(context_hand(texts, index) + senti) * self.dense_scale

    def scores(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Decision scores per head, each (m, k), for the units ``texts`` in review order."""
        total = self._total(texts)
        return {h: total[:, sl] for h, sl in self._slices.items()}

    def _total(self, texts: Sequence[str]) -> np.ndarray:
        """Every head's decision scores (m, K) for the units ``texts`` in review order."""
        m = len(texts)
        k = len(self._b)
        total = np.zeros((m, k))
        as_prev = np.zeros((m, k))  # unit i's contribution to unit i+1 through the "prev" block
        as_next = np.zeros((m, k))  # unit i's contribution to unit i-1 through the "next" block
        for i, text in enumerate(texts):
            idx, v, _ = self._cached(text)
            row = self._w_dense @ self.dense_part(texts, i) + self._b
            if len(idx):
                part = v @ self._w_sparse[idx]
                row = row + part[:k]
                as_prev[i] = part[k : 2 * k]
                as_next[i] = part[2 * k :]
            total[i] = row
        if m > 1 and self.context_weight:
            total[1:] += self.context_weight * as_prev[:-1]
            total[:-1] += self.context_weight * as_next[1:]
        return total

    def _score_alone(self, text: str) -> np.ndarray:
        """Every head's decision scores of ``text`` scored as a call of its own: the one row of
        ``scores([text])`` (memoised: with no neighbours the row is a function of the text)."""
        hit = self._alone.get(text)
        if hit is None:
            if len(self._alone) > 50_000:
                self._alone.clear()
            hit = self._total((text,))[0]
            self._alone[text] = hit
        return hit

    def scores_alone(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Decision scores per head, each (m, k), of each text scored on its own (no context):
        row i equals ``scores([texts[i]])`` (the ground step's per-premise call), all at once."""
        k = len(self._b)
        total = np.vstack([self._score_alone(t) for t in texts]) if texts else np.zeros((0, k))
        return {h: total[:, sl] for h, sl in self._slices.items()}

    def clear_cache(self) -> None:
        """Forget every per-text result (benchmarks time cold passes with it)."""
        self._cache.clear()
        self._alone.clear()

    def predict(self, head: str, scores: np.ndarray) -> list[str]:
        """Labels of ``head`` from its scores (binary heads use the tuned threshold)."""
        h = self.heads[head]
        p = _proba(scores, len(h.classes))
        if len(h.classes) == 2:
            t = self.thresholds.get(head, 0.5)
            return [h.classes[1] if q > t else h.classes[0] for q in p[:, 1]]
        return [h.classes[k] for k in p.argmax(axis=1)]


def save_model(path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Write ``model.json`` and ``weights.npz`` (float32, compressed) into ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    (path / META_FILE).write_text(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))
    packed: dict[str, Any] = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
    np.savez_compressed(path / WEIGHTS_FILE, **packed)


def read_model(path: Path) -> DepthModel:
    """Load a model from a directory holding ``model.json`` and ``weights.npz``."""
    meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    with np.load(path / WEIGHTS_FILE, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return DepthModel(meta, arrays)


@lru_cache(maxsize=1)
def load_model() -> DepthModel:
    """The bundled model, loaded once per process on first use."""
    root = resources.files("prism_review") / MODEL_DIR
    return read_model(Path(str(root)))

"""The offline DoA judge's sentence encoder: a fine-tuned small transformer run with onnxruntime.

A three-layer cut of all-MiniLM-L6-v2, fine-tuned on the human labels (see the model card),
turns each unit into a 384-d mean-pooled vector (ONNX graph, int8 weights, ``encoder.onnx``,
post-processed by :mod:`prism_review.training.onnx_post` for one sentence per run).
The units of one call are then read in order by a small context module — residual width-3
convolutions over the sequence of unit vectors, so each unit sees its neighbours, plus the
mean vector of the whole call — and linear heads give, per unit:

* ``argumentative`` — P(the sentence is an argumentative unit);
* ``role`` — P(Claim), P(Premise);
* ``aspect`` — P(Soundness), P(Clarity), P(Contribution), P(Other);
* ``mixed`` — P(the sentence holds a claim and its support), when the artefacts have it
  (:mod:`.clauses`; ``role`` and ``mixed`` are refitted by :mod:`prism_review.training.depth.train_heads`).

Only numpy, ``tokenizers`` and ``onnxruntime`` run here (no torch). The artefacts are written
by :mod:`prism_review.training.depth.train_encoder` and loaded lazily once per process.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.judge.depth.model import MODEL_DIR
from prism_review.judge.vector_cache import VectorCache

ENCODER_FILE = "encoder.onnx"
TOKENIZER_FILE = "tokenizer.json"
ENCODER_META = "encoder.json"
ENCODER_HEADS = "encoder_heads.npz"
ENCODER_FILES = (ENCODER_FILE, TOKENIZER_FILE, ENCODER_META, ENCODER_HEADS)
#: sentence vectors kept per process (segment and classify see the same sentences)
CACHE_SIZE = 20_000
#: sentences handed to the workers ahead of their call (:meth:`SentenceEncoder.prefetch`) and
#: not yet asked for; past this, prefetching waits for the oldest to finish
PREFETCH_LIMIT = 4_000
#: prefetched runs handed to the pool at a time, per worker
PREFETCH_IN_FLIGHT = 2
#: an artefact directory to load instead of the bundled one (compare a newly trained or
#: re-quantised encoder with ``prism agreement`` before it replaces the shipped files)
ENCODER_DIR_ENV = "PRISM_DEPTH_ENCODER_DIR"


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as torch's default."""
    from scipy.special import erf

    return (0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))).astype(np.float32)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def stack_taps(weight: np.ndarray) -> np.ndarray:
    """A Conv1d weight (out, in, 3) as one (3·in, out) matrix: previous, own, next unit."""
    return np.vstack([weight[:, :, k].T for k in range(3)]).astype(np.float32)


def contextualise(e: np.ndarray, convs: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """[own | contextualised | call mean] rows for one call's unit vectors ``e`` (n × d).

    Each layer is ``x + gelu(conv3(x))`` over the unit sequence with zero padding at the
    ends; ``weight`` has torch's Conv1d layout (out, in, 3). The last block is the mean of
    all the call's unit vectors (what kind of review this is), the same on every row.
    """
    return contextualise_stacked(e, [(stack_taps(w), b) for w, b in convs])


def contextualise_stacked(
    e: np.ndarray, layers: Sequence[tuple[np.ndarray, np.ndarray]]
) -> np.ndarray:
    """:func:`contextualise` with each layer's weight already in :func:`stack_taps` form."""
    x = e.astype(np.float32)
    n = len(e)
    zero = np.zeros((1, x.shape[1]), np.float32)
    for taps_weight, bias in layers:
        padded = np.vstack([zero, x, zero])
        taps = np.hstack([padded[0:n], padded[1 : n + 1], padded[2 : n + 2]])
        x = x + _gelu(taps @ taps_weight + bias)
    mean = np.repeat(e.mean(axis=0, keepdims=True), n, axis=0)
    return np.concatenate([e, x, mean], axis=1)


class SentenceEncoder:
    """Tokenizer + ONNX encoder + context module + heads, from one artefact directory."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.path = path
        self.meta: dict[str, Any] = json.loads((path / ENCODER_META).read_text("utf-8"))
        self.max_length = int(self.meta["max_length"])
        self.tokenizer = Tokenizer.from_file(str(path / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(self.max_length)
        self.tokenizer.no_padding()
        # sentences are short: two single-threaded runs side by side beat one two-threaded run
        self.workers = int(self.meta.get("threads", 2))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(
            str(path / ENCODER_FILE), opts, providers=["CPUExecutionProvider"]
        )
        with np.load(path / ENCODER_HEADS, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        self.convs = [
            (arrays[f"ctx.{i}.weight"], arrays[f"ctx.{i}.bias"])
            for i in range(int(self.meta["context_layers"]))
        ]
        self._stacked = [(stack_taps(w), b) for w, b in self.convs]
        self.heads = {
            h: (arrays[f"head.{h}.weight"], arrays[f"head.{h}.bias"]) for h in self.meta["classes"]
        }
        self.classes: dict[str, list[str]] = self.meta["classes"]
        self._cache = VectorCache(CACHE_SIZE)
        self._executor: ThreadPoolExecutor | None = None
        #: text → its run, queued by :meth:`prefetch` and not yet taken by a call (main thread)
        self._pending: dict[str, Future[np.ndarray]] = {}
        #: prefetched runs not yet handed to the pool, and those handed and not finished
        self._backlog: deque[tuple[str, Future[np.ndarray]]] = deque()
        self._in_flight = 0
        self._lock = threading.Lock()
        #: onnxruntime runs made (prefetched or not): tests and benchmarks read it
        self.runs = 0

    def _run(self, text: str) -> np.ndarray:
        """The mean-pooled vector of one sentence: one onnxruntime run of its tokens alone.

        One at a time on purpose: the int8 graph quantises activations per run, so a batch
        would make a sentence's vector depend on its batch-mates (and a resumed run could
        differ from an uninterrupted one). Tokenised in the worker, so the two workers start
        at once and tokenising overlaps the other's run (encode_batch would spin rayon threads).
        """
        with self._lock:
            self.runs += 1
        x = np.asarray([self.tokenizer.encode(text).ids], dtype=np.int64)
        return self.session.run(None, {"ids": x, "mask": np.ones_like(x)})[0][0]

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts``: a prefetched run is taken (or waited for), the others run now.

        A prefetched text whose run has not started yet is taken back and run with the
        others, so a call never waits behind the backlog of reviews still to come.
        """
        pending: list[Future[np.ndarray] | None] = []
        for t in texts:
            f = self._pending.pop(t, None)
            pending.append(None if f is None or f.cancel() else f)
        todo = [t for t, f in zip(texts, pending, strict=True) if f is None]
        if len(todo) <= 1 or self.workers == 1:
            fresh = iter([self._run(t) for t in todo])
        else:
            fresh = self._pool().map(self._run, todo)
        return np.vstack([f.result() if f is not None else next(fresh) for f in pending])

    def prefetch(self, texts: Sequence[str]) -> int:
        """Queue ``texts`` for the workers and return at once; returns how many were queued.

        A later :meth:`vectors` call takes the finished vectors (or waits for them), so the
        caller's other work — the previous review's grounding, say — overlaps the encoder's
        runs. At most :data:`PREFETCH_IN_FLIGHT` per worker are handed to the pool at a
        time, so a call's own runs wait behind only those. Each vector is the same run of
        the sentence alone either way, so prefetching changes no value. Does nothing with a
        single worker (no thread to overlap with).
        """
        if self.workers == 1:
            return 0
        queued = 0
        for t in dict.fromkeys(texts):
            if t in self._pending or self._cache.has(t):
                continue
            while len(self._pending) >= PREFETCH_LIMIT:  # never asked for: keep them cached
                oldest, f = next(iter(self._pending.items()))
                del self._pending[oldest]
                if not f.cancel():
                    self._cache.update({oldest: f.result()})
            f = Future()
            self._pending[t] = f
            with self._lock:
                self._backlog.append((t, f))
            queued += 1
        self._feed()
        return queued

    def _feed(self) -> None:
        """Hand queued prefetches to the pool while fewer than the bound are in flight."""
        with self._lock:
            while self._in_flight < PREFETCH_IN_FLIGHT * self.workers and self._backlog:
                t, f = self._backlog.popleft()
                if f.set_running_or_notify_cancel():  # false: taken back by a call
                    self._in_flight += 1
                    self._pool().submit(self._prefetched, t, f)

    def _prefetched(self, text: str, future: Future[np.ndarray]) -> None:
        try:
            future.set_result(self._run(text))
        except BaseException as exc:  # the call that asks for it raises it
            future.set_exception(exc)
        finally:
            with self._lock:
                self._in_flight -= 1
            self._feed()

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="prism-encoder")
        return self._executor

    def clear_cache(self) -> None:
        """Forget every cached or prefetched sentence vector (benchmarks time cold passes)."""
        for f in self._pending.values():
            f.cancel()
        for f in self._pending.values():
            if not f.cancelled():
                f.exception()  # wait for a run already under way
        self._pending.clear()
        self._cache.clear()

    @property
    def cached(self) -> int:
        """Number of sentence vectors held in the cache."""
        return len(self._cache)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence vectors of ``texts`` (cached per text)."""
        return self._cache.rows(texts, self._encode)

    def probabilities(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Per-head class probabilities for one call's units ``texts``, read in order."""
        if not texts:
            return {h: np.zeros((0, len(c)), dtype=np.float32) for h, c in self.classes.items()}
        z = contextualise_stacked(self.vectors(texts), self._stacked)
        return {h: _softmax(z @ w.T + b) for h, (w, b) in self.heads.items()}

    def predict(self, head: str, proba: np.ndarray) -> list[str]:
        """Labels of ``head`` from its probabilities (argmax)."""
        cls = self.classes[head]
        return [cls[k] for k in proba.argmax(axis=1)]


def read_encoder(path: Path) -> SentenceEncoder:
    """The encoder stored in ``path``."""
    return SentenceEncoder(path)


@lru_cache(maxsize=1)
def load_encoder() -> SentenceEncoder:
    """The encoder, loaded once per process on first use: the bundled one, or the artefact
    directory named by ``$PRISM_DEPTH_ENCODER_DIR`` (the grounding model stays bundled)."""
    override = os.environ.get(ENCODER_DIR_ENV, "").strip()
    if override:
        path = Path(override)
        missing = [f for f in ENCODER_FILES if not (path / f).is_file()]
        if missing:
            raise FileNotFoundError(
                f"${ENCODER_DIR_ENV}={override}: no {', '.join(missing)} in that directory"
            )
        return read_encoder(path)
    root = resources.files("prism_review") / MODEL_DIR
    return read_encoder(Path(str(root)))

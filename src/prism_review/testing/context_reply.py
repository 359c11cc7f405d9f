"""Context-sensitive replies: every answer shifts with the whole prompt, as a real model's does.

A real LLM's answer about one review moves with everything else in its request: batch-mates,
their order, a neighbour's length. The decision judges of this package
(:mod:`~prism_review.testing.novelty_decisions`, :mod:`~prism_review.testing.flaw_decisions`)
decide each item from its own text, so a call holding several reviews gives each the answer it
would get alone, and a test using them cannot see a protocol whose scores depend on the rest of
the run. :func:`context_sensitive` wraps any reply (a responder's, a canned one, the schema-built
default) so that it cannot hide that:

* the reply stays what the base gave wherever the judge's checks read identity or coherence: free
  strings (quotes, texts), ids (any property named ``*id``), the entries of a list that answers
  one entry per id (its entries' ids cover an id enum of the schema), and an object that holds a
  boolean (a flaw's ``is_valid`` and its severity must agree), so it stays schema-valid and
  answers the same items;
* everything else the model decides is drawn afresh from a generator seeded by a hash of the
  **whole** request (all messages and the schema's name; not the output budget, so a re-ask with
  more room gets the same answer, :func:`~prism_review.testing.schema_fill.seed_for`): numbers
  the schema bounds and number-valued enums (rubric scores 0/1/2, grounding and verdict scores),
  label enums (a role, an aspect, a verdict label), and which entries a free list keeps (each of
  a flaw bank's flaws, a review's mentions, its comments, its claims dropped with probability
  1/4, one entry always kept).

Two identical requests get identical replies; a request that differs anywhere (one more review in
the call, another order, another paper beside it) gets other numbers for every item in it. Used by
``LLMServer(context_seed=N)`` (tests/protocols/test_invariance.py).
"""

from __future__ import annotations

import json
import random
from typing import Any

from prism_review.testing.schema_fill import seed_for

Reply = Any


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
    return schema if isinstance(schema, dict) else {}


def _options(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return [_resolve(o, root) for o in schema[key]]
    return [schema]


class _Shifter:
    def __init__(self, root: dict[str, Any], rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    def number(self, value: Any, schema: dict[str, Any]) -> Any:
        for opt in _options(schema, self.root):
            enum = opt.get("enum")
            if enum and all(isinstance(e, int | float) and not isinstance(e, bool) for e in enum):
                return self.rng.choice(enum)
            typ = opt.get("type")
            if "minimum" in opt and "maximum" in opt and typ in ("integer", "number"):
                lo, hi = opt["minimum"], opt["maximum"]
                if typ == "integer" or isinstance(value, int):
                    return self.rng.randint(int(lo), int(hi))
                return round(self.rng.uniform(float(lo), float(hi)), 2)
        return value

    def label(self, value: str, schema: dict[str, Any], name: str) -> str:
        if name.lower().endswith("id"):  # an id the reply must echo
            return value
        for opt in _options(schema, self.root):
            enum = opt.get("enum")
            if enum and all(isinstance(e, str) for e in enum):
                return str(self.rng.choice(enum))
        return value

    def _props(self, schema: dict[str, Any]) -> dict[str, Any]:
        props: dict[str, Any] = {}
        for o in _options(schema, self.root):
            props.update(o.get("properties") or {})
        return props

    def _one_per_id(self, value: list[Any], item: dict[str, Any]) -> bool:
        """A list answering one entry per id: its entries' values of an id property the schema
        enumerates cover the whole enum (a verdict per candidate, an entry per review)."""
        for k, v in self._props(item).items():
            enums = [o["enum"] for o in _options(_resolve(v, self.root), self.root) if o.get("enum")]
            if k.lower().endswith("id") and enums and {e.get(k) for e in value} >= set(enums[0]):
                return True
        return False

    def _list(self, value: list[Any], item: dict[str, Any], depth: int, name: str) -> list[Any]:
        if value and all(isinstance(v, dict) for v in value) and not self._one_per_id(value, item):
            keep = [v for v in value if self.rng.random() >= 0.25] or [value[self.rng.randrange(len(value))]]
            value = keep
        return [self.walk(v, item, depth + 1, name) for v in value]

    def walk(self, value: Any, schema: Any, depth: int = 0, name: str = "", frozen: bool = False) -> Any:
        schema = _resolve(schema, self.root)
        if depth > 12 or isinstance(value, bool) or value is None:
            return value
        if isinstance(value, str):
            return value if frozen else self.label(value, schema, name)
        if isinstance(value, int | float):
            return self.number(value, schema)
        if isinstance(value, list):
            item: Any = next((o.get("items") for o in _options(schema, self.root) if "items" in o), {})
            return self._list(value, _resolve(item, self.root), depth, name)
        if isinstance(value, dict):
            props = self._props(schema)
            hold = any(isinstance(v, bool) for v in value.values())  # keep a boolean's labels agreeing
            return {k: self.walk(v, props.get(k, {}), depth + 1, k, hold) for k, v in value.items()}
        return value


def context_sensitive(body: dict[str, Any], reply: Reply, seed: int) -> Reply:
    """``reply`` (a ``str`` of JSON, a ``dict`` or ``list``) with its schema-bounded numbers
    redrawn from a hash of the whole request (see the module docstring). A reply that is not
    JSON, or a request without a ``json_schema``, is returned unchanged."""
    rf = body.get("response_format") or {}
    schema = (rf.get("json_schema") or {}).get("schema") if rf.get("type") == "json_schema" else None
    if not isinstance(schema, dict):
        return reply
    if isinstance(reply, str):
        try:
            value = json.loads(reply)
        except ValueError:
            return reply
    elif isinstance(reply, dict | list):
        value = reply
    else:
        return reply
    shifted = _Shifter(schema, random.Random(seed_for(body, seed))).walk(value, schema)
    return json.dumps(shifted) if isinstance(reply, str) else shifted

"""Replies built from a JSON schema alone, as a server that decodes under the schema makes them.

A server with constrained decoding (vLLM guided decoding, llama.cpp grammars, Ollama ``format``)
can only emit what the sent schema admits. :func:`fill_schema` plays such a server without any
model: it fills every required property, picks enum values, makes arrays non-empty and writes
strings of plain words, all drawn from a seeded random generator, so the same schema and seed
always give the same instance. It reads nothing but the schema, so if a step's schema admits
only an empty answer (``{}`` for an object closed with no properties), that is what it gets.

One behaviour stands in for a model reading its prompt: an array whose items carry enum-limited
properties lists the enum values in turn (one item per value of the longest enum), the way a
model answers "one entry per id" when the ids are the schema's enum.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

_WORDS = ["the", "method", "baseline", "result", "table", "figure", "claim", "evidence", "section", "model", "data", "error", "experiment", "analysis", "proof", "bound", "metric", "sample", "training", "loss", "accuracy", "ablation"]


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
    return schema if isinstance(schema, dict) else {}


def _type(schema: dict[str, Any]) -> str | None:
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "null")
    if typ is None and "properties" in schema:
        return "object"
    return typ


def _enum_props(item: dict[str, Any], root: dict[str, Any]) -> dict[str, list[Any]]:
    props = item.get("properties") or {}
    out = {}
    for name, sub in props.items():
        sub = _resolve(sub, root)
        if sub.get("enum"):
            out[name] = list(sub["enum"])
    return out


def fill_schema(schema: dict[str, Any], seed: int | str = 0) -> Any:
    """A deterministic instance of ``schema`` (see the module docstring)."""
    return _Filler(schema, random.Random(str(seed))).value(schema, 0)


def seed_for(body: dict[str, Any], seed: int) -> str:
    """A per-request seed: the same messages (and schema) and seed always get the same reply,
    whatever the token budget, so a re-ask with more room gets the answer that was cut."""
    rf = (body.get("response_format") or {}).get("json_schema") or {}
    blob = json.dumps(body.get("messages", []), sort_keys=True) + str(rf.get("name"))
    return f"{seed}:{hashlib.sha256(blob.encode()).hexdigest()[:16]}"


class _Filler:
    def __init__(self, root: dict[str, Any], rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    def value(self, schema: Any, depth: int, fixed: dict[str, Any] | None = None) -> Any:
        schema = _resolve(schema, self.root)
        if depth > 12:
            return None
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.rng.choice(schema["enum"])
        for key in ("anyOf", "oneOf", "allOf"):
            options = schema.get(key)
            if options:
                real = [o for o in options if _type(_resolve(o, self.root)) != "null"]
                return self.value(self.rng.choice(real or options), depth + 1, fixed)
        typ = _type(schema)
        if typ == "object":
            return self._object(schema, depth, fixed or {})
        if typ == "array":
            return self._array(schema, depth)
        if typ == "integer":
            lo = int(schema.get("minimum", 0))
            return self.rng.randint(lo, int(schema.get("maximum", lo + 5)))
        if typ == "number":
            bottom = float(schema.get("minimum", 0.0))
            return round(self.rng.uniform(bottom, float(schema.get("maximum", bottom + 5.0))), 2)
        if typ == "boolean":
            return self.rng.random() < 0.5
        if typ == "null":
            return None
        return self._string(schema)  # "string", or a schema that admits anything

    def _string(self, schema: dict[str, Any]) -> str:
        words = [self.rng.choice(_WORDS) for _ in range(self.rng.randint(2, 7))]
        text = " ".join(words).capitalize() + "."
        low = int(schema.get("minLength", 1))
        while len(text) < low:
            text += " " + self.rng.choice(_WORDS)
        return text[: int(schema["maxLength"])] if "maxLength" in schema else text

    def _object(self, schema: dict[str, Any], depth: int, fixed: dict[str, Any]) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or self.rng.random() < 0.5:
                out[name] = fixed[name] if name in fixed else self.value(sub, depth + 1)
        extra = schema.get("additionalProperties")
        if not props and (extra is True or isinstance(extra, dict) or extra is None):
            for _ in range(self.rng.randint(1, 2)):  # an open object: free keys
                key = self.rng.choice(_WORDS)
                out[key] = self.value(extra if isinstance(extra, dict) else {}, depth + 1)
        return out

    def _array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        low = max(1, int(schema.get("minItems", 0)))
        high = max(low, int(schema.get("maxItems", 10_000)))
        n = self.rng.randint(low, min(high, low + 2))
        item = _resolve(schema.get("items", {}), self.root)
        enums = _enum_props(item, self.root) if _type(item) == "object" else {}
        if enums:  # one entry per enum value, each value in turn
            n = min(high, max(n, *(len(v) for v in enums.values())))
            return [self.value(item, depth + 1, {k: v[i % len(v)] for k, v in enums.items()})
                    for i in range(n)]
        return [self.value(item, depth + 1) for _ in range(n)]

"""Build a minimal valid JSON instance of a JSON schema (the loopback server's default reply)."""

from __future__ import annotations

from typing import Any


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return _resolve(node, root) if isinstance(node, dict) else {}
    return schema


def example_for_schema(schema: dict[str, Any], root: dict[str, Any] | None = None,
                       depth: int = 0) -> Any:
    """A small instance that validates against ``schema`` (first enum value, ``"x"``, 0, ...)."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if depth > 12:
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if options:
            non_null = [o for o in options if _resolve(o, root).get("type") != "null"]
            return example_for_schema((non_null or options)[0], root, depth + 1)
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "null")
    if typ == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: example_for_schema(v, root, depth + 1) for k, v in props.items()}
    if typ == "array":
        n = int(schema.get("minItems", 0))
        return [example_for_schema(schema.get("items", {}), root, depth + 1) for _ in range(n)]
    if typ == "string":
        return "x" * max(1, int(schema.get("minLength", 1)))
    if typ == "integer":
        return int(schema.get("minimum", 0))
    if typ == "number":
        return float(schema.get("minimum", 0.0))
    if typ == "boolean":
        return False
    return None

"""Lenient JSON-object parsing of model replies, and strict JSON schemas for step outputs.

:func:`parse_json_object` accepts what models actually send: ``<think>`` blocks, code fences,
leading or trailing prose, trailing commas, LaTeX with unescaped backslashes (``\\frac``,
``\\beta``) and raw newlines inside strings. It returns the first JSON object it can recover, or
raises :class:`ReplyParseError`.

It never *completes* a reply: a reply cut off inside a string, array or object (whatever the
``finish_reason``) raises :class:`TruncatedReplyError`, because closing the open brackets would
turn a cut answer into a shorter, valid-looking one (fewer flaws, fewer units) that nobody can
tell from a complete answer. The judge re-asks instead (with a larger output budget when the
server said ``finish_reason="length"``).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel


class ReplyParseError(ValueError):
    """No JSON object could be recovered from a reply."""


class TruncatedReplyError(ReplyParseError):
    """The reply's JSON object starts but never closes: the reply was cut off."""


_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)(```|$)", re.S)
_UNICODE_ESCAPE = re.compile(r"u[0-9a-fA-F]{4}")
_BACKSLASH = re.compile(r"\\(\\|u[0-9a-fA-F]{4}|[A-Za-z]+|.)", re.S)
#: LaTeX commands whose first letter is also a JSON escape (\b \f \n \r \t): kept literal
_LATEX_COMMANDS = (
    "beta bar bf bm boldsymbol big bigg bigl bigr binom bullet bot begin bmod boxed "
    "frac forall flat frak footnote fbox "
    "nabla neq ne nu newline noindent not nmid nleq ngeq notin nonumber neg "
    "rho right rangle rm rceil rfloor rightarrow ref rvert "
    "tau theta times text textbf textit texttt textrm tilde top to tfrac "
    "textsc tag triangle triangleq"
)
_LATEX_WORDS = frozenset(_LATEX_COMMANDS.split())


def _fix_backslashes(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        tok = m.group(1)
        if tok == "\\" or _UNICODE_ESCAPE.fullmatch(tok):
            return m.group(0)
        if tok[0].isalpha():
            if tok[0] in "bfnrt" and tok not in _LATEX_WORDS:
                return m.group(0)
            return "\\\\" + tok
        if tok in '"/':
            return m.group(0)
        return "\\\\" + tok

    return _BACKSLASH.sub(sub, text)


def _outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(index, char)`` of each character of ``text[start:]`` that is not inside a JSON string;
    the quotes that open and close strings are included, so an odd count of ``"`` means the
    text ends inside a string. The one string-state machine the scanners below share."""
    in_str, esc = False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
                yield i, ch
        else:
            if ch == '"':
                in_str = True
            yield i, ch


def _drop_trailing_commas(text: str) -> str:
    """Remove commas (outside strings) that directly precede a closing bracket."""
    drop = {
        i
        for i, ch in _outside_strings(text)
        if ch == "," and text[i + 1 :].lstrip()[:1] in ("}", "]")
    }
    return "".join(ch for i, ch in enumerate(text) if i not in drop) if drop else text


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket that closes ``text[start]``, or None if it never closes."""
    depth = 0
    for i, ch in _outside_strings(text, start):
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _loads(text: str) -> Any:
    return json.loads(text, strict=False)


def _try_object(candidate: str) -> dict[str, Any] | None:
    # LaTeX first: an unescaped \frac is valid JSON (form feed + "rac"), never what was meant
    latex_safe = _fix_backslashes(candidate)
    for attempt in (latex_safe, _drop_trailing_commas(latex_safe)):
        try:
            val = _loads(attempt)
        except json.JSONDecodeError:
            continue
        if isinstance(val, dict):
            return val
    return None


def parse_json_object(text: str | None) -> dict[str, Any]:
    """The first JSON object recoverable from a model reply (see the module docstring)."""
    if text is None or not text.strip():
        raise ReplyParseError("the reply is empty")
    body = _THINK.sub("", text).strip()
    fences = [m.group(1) for m in _FENCE.finditer(body) if "{" in m.group(1)]
    sources = [*fences, body]
    cut = False
    for src in sources:
        src = src.strip()
        found = _try_object(src)
        if found is not None:
            return found
        start = src.find("{")
        while start != -1:
            end = _balanced_end(src, start)
            if end is None:  # opened and never closed: cut off, not repairable
                cut = True
                break
            found = _try_object(src[start:end])
            if found is not None:
                return found
            start = src.find("{", start + 1)
    if cut:
        raise TruncatedReplyError(
            "the reply is cut off: its JSON object is never closed (an unfinished string, "
            f"array or object; it ends {text.strip()[-60:]!r})")
    raise ReplyParseError(f"no JSON object found in the reply (starts {text.strip()[:80]!r})")


# -- strict JSON schemas ----------------------------------------------------------------------


def _strictify(node: Any) -> bool:
    """Make every object closed with all properties required; False if that is impossible.

    An object without fixed properties (a ``dict`` field: free keys) cannot be strict, and is
    left open: closing it would make ``{}`` its only valid value, which a server that decodes
    under the schema then has to produce. Step outputs avoid such fields (lists of objects
    instead), so their schemas stay strict."""
    if not isinstance(node, dict):
        return True
    ok = True
    node.pop("default", None)
    if "$ref" in node and len(node) > 1:
        for key in [k for k in node if k != "$ref"]:
            node.pop(key)
    if node.get("type") == "object" or "properties" in node:
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) or extra is True or "properties" not in node:
            ok = False
        else:
            node["additionalProperties"] = False
            node["required"] = list(node.get("properties", {}))
    children: list[Any] = []
    for key in ("properties", "$defs", "definitions"):
        children.extend((node.get(key) or {}).values())
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        children.extend(node.get(key) or [])
    if isinstance(node.get("items"), dict):
        children.append(node["items"])
    for child in children:
        ok = _strictify(child) and ok
    return ok


def schema_name(step_name: str) -> str:
    """A response-format schema name the APIs accept (``[A-Za-z0-9_-]{1,64}``)."""
    return (re.sub(r"[^A-Za-z0-9_-]", "_", step_name) or "output")[:64]


def response_schema(model: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """(JSON schema of ``model`` prepared for structured outputs, can it be used strictly?)."""
    schema = copy.deepcopy(model.model_json_schema())
    strict = _strictify(schema)
    return schema, strict


def apply_enums(schema: dict[str, Any], enums: dict[str, list[Any]]) -> dict[str, Any]:
    """A copy of ``schema`` where every object property named in ``enums`` is limited to those
    values (a string, or an integer when every value is one); empty value lists are ignored
    (an empty enum admits nothing)."""
    wanted = {k: list(dict.fromkeys(v)) for k, v in enums.items() if v}
    out = copy.deepcopy(schema)
    if not wanted:
        return out

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                for name, values in wanted.items():
                    if name in props:
                        title = props[name].get("title") if isinstance(props[name], dict) else None
                        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
                        props[name] = {"type": "integer" if ints else "string", "enum": values,
                                       **({"title": title} if title else {})}
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


def _fits(value: Any, kind: str) -> bool:
    if value is None:  # a null is a missing value, which a step's model reads (or refuses)
        return True
    if kind == "string":
        return isinstance(value, str)
    if kind in ("integer", "number"):  # a numeric string is what a lax validator coerces
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return False
            return True
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool) or value in (0, 1, "true", "false")
    if kind in ("array", "object"):  # either container: lenient models read both shapes
        return isinstance(value, list | dict)
    return kind != "null"


def type_mismatch(value: Any, schema: dict[str, Any] | None, root: dict[str, Any] | None = None,
                  path: str = "") -> str | None:
    """Where ``value`` has a JSON type the response ``schema`` does not allow (a list for a
    string, a word for a number, a string for a list...), or None. Only the types of the
    object's properties are checked (through nested objects, ``$ref`` and ``anyOf``), not
    enums, bounds, missing keys, nulls or the items of a list (the reference drops items that
    are no objects), which the step's own model reads leniently; a list and an object stand for each
    other (a step's model may read a mapping as either). An answer of the wrong type is an
    unusable reply even when a lenient validator would coerce it."""
    if not isinstance(schema, dict):
        return None
    root = schema if root is None else root
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return type_mismatch(value, node, root, path)
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches:
        found = [type_mismatch(value, b, root, path) for b in branches]
        return None if any(f is None for f in found) else found[0]
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(kinds, list) and kinds and not any(_fits(value, k) for k in kinds):
        return f"{path or '<root>'}: a {type(value).__name__} where the schema wants {'/'.join(kinds)}"
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key in value:
                found_in = type_mismatch(value[key], sub, root, f"{path}.{key}".lstrip("."))
                if found_in:
                    return found_in
    return None

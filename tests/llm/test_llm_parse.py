"""Lenient reply parsing and strict response schemas."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from prism_review.llm.parse import (
    ReplyParseError,
    TruncatedReplyError,
    parse_json_object,
    response_schema,
    schema_name,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Here you go:\n```\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}),
        ('Sure! The answer is {"a": "b"} as requested.', {"a": "b"}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ('<think>maybe {"a": 0}</think>{"a": 2}', {"a": 2}),
        ('{"a": "line one\nline two"}', {"a": "line one\nline two"}),  # raw newline in string
        ('{"a": "uses, commas,]"}', {"a": "uses, commas,]"}),  # commas inside strings untouched
        # ... also after an escaped quote (it does not end the string), when a trailing comma
        # elsewhere sends the reply through the comma repair
        ('{"a": "he said \\"x, }\\" ok", "b": [1, 2,],}', {"a": 'he said "x, }" ok', "b": [1, 2]}),
        ('{"q": "a \\\\", "b": "c, ]", "d": [3,]}', {"q": "a \\", "b": "c, ]", "d": [3]}),
        ("prose {not json} then {\"ok\": true}", {"ok": True}),
        ('[1, 2] and {"x": 1}', {"x": 1}),
    ],
)
def test_lenient_forms(text, expected):
    assert parse_json_object(text) == expected


@pytest.mark.parametrize(
    ("latex", "meaning"),
    [
        (r"\frac{a}{b}", r"\frac{a}{b}"),
        (r"\beta + \alpha", r"\beta + \alpha"),
        (r"\nabla f \neq 0", r"\nabla f \neq 0"),
        (r"\theta \times \textbf{x}", r"\theta \times \textbf{x}"),
        (r"\mathcal{O}(n \log n)", r"\mathcal{O}(n \log n)"),
        (r"\underline{x} \%", r"\underline{x} \%"),
    ],
)
def test_unescaped_latex_backslashes_are_kept_literally(latex, meaning):
    assert parse_json_object('{"m": "' + latex + '"}') == {"m": meaning}


def test_real_escapes_still_work():
    assert parse_json_object(r'{"a": "x\ny\t\"q\" \u00e9 \\frac"}') == {
        "a": 'x\ny\t"q" é \\frac'}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": "unfinished', {"a": 1, "b": "unfinished"}),
        ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
        ('{"a": 1, "ke', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1, "b": None}),
        ('{"a": {"b": {"c": [{"d": 1}, {"e": "x', {"a": {"b": {"c": [{"d": 1}, {"e": "x"}]}}}),
        ('```json\n{"a": [1, 2, 3', {"a": [1, 2, 3]}),
        ("{", {}),
        ('{"a": "say \\"hi\\", then', {"a": 'say "hi", then'}),  # escaped quotes in the cut string
    ],
)
def test_truncated_tails_are_a_failed_parse_never_repaired(text, expected):
    # before: each was "repaired" into ``expected``, a shorter answer that looks complete
    with pytest.raises(TruncatedReplyError, match="cut off"):
        parse_json_object(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
        ('Here you go: {"a": {"b": 1}} hope it helps', {"a": {"b": 1}}),
        ('{"a": 1}\n{"b": [', {"a": 1}),  # a complete object first: the tail is prose
    ],
)
def test_safe_repairs_are_kept(text, expected):
    assert parse_json_object(text) == expected


@pytest.mark.parametrize("text", ["", "   ", None, "no json here", "[1, 2, 3]", "{]"])
def test_unrecoverable_raises(text):
    with pytest.raises(ReplyParseError):
        parse_json_object(text)


class Inner(BaseModel):
    name: str
    weight: float = 1.0


class Outer(BaseModel):
    items: list[Inner]
    note: str | None = None
    default: int = 0  # a field literally called "default" must survive


class Loose(BaseModel):
    extra: dict[str, int]


def test_strict_schema_closes_objects_and_requires_all():
    schema, strict = response_schema(Outer)
    assert strict
    assert schema["additionalProperties"] is False
    assert sorted(schema["required"]) == ["default", "items", "note"]
    assert "default" in schema["properties"]
    inner = schema["$defs"]["Inner"]
    assert inner["additionalProperties"] is False and inner["required"] == ["name", "weight"]
    assert "default" not in inner["properties"]["weight"]


def test_free_form_dicts_cannot_be_strict():
    _, strict = response_schema(Loose)
    assert not strict


def test_schema_name():
    assert schema_name("depth.segment") == "depth_segment"
    assert len(schema_name("x" * 100)) == 64


def test_type_mismatch_finds_an_answer_of_the_wrong_json_type():
    # before: an answer off the schema that a lenient validator coerced (a list for a string,
    # a label mapped to a default) was used as the model's answer
    from prism_review.llm.parse import type_mismatch

    schema = {"type": "object", "$defs": {"E": {"type": "object", "properties": {
                  "label": {"type": "string"}, "score": {"type": "integer"}}}},
              "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/E"}},
                             "best": {"$ref": "#/$defs/E"},
                             "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    good = {"items": [{"label": "a", "score": 2}, 1], "best": {"score": "3"}, "note": None}
    assert type_mismatch(good, schema) is None  # list items are the step's to read
    assert type_mismatch({"items": {"k": "v"}}, schema) is None  # a mapping for a list: read
    assert "best.label" in type_mismatch({"best": {"label": [7]}}, schema)
    assert "best.score" in type_mismatch({"best": {"score": "n/a-3"}}, schema)
    assert "items" in type_mismatch({"items": "n/a"}, schema)
    assert "note" in type_mismatch({"note": [1]}, schema)

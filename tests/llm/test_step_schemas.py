"""Every registered step's response schema admits a non-empty answer for every field it reads.

A server that decodes under the schema (vLLM guided decoding, llama.cpp grammars, Ollama
``format``) can only produce what the schema admits. An object closed with no properties admits
only ``{}``: the flaw steps' ``raw_arguments`` and ``evaluations`` were such objects, so every flaw
came back with no reviewer and no evaluation and the unit was written ``ok`` with nCPS 0.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import pytest

from prism_review.judge.base import JudgeStep
from prism_review.llm.parse import apply_enums, response_schema
from prism_review.testing.schema_fill import fill_schema

PACKAGES = ("prism_review.judge", "prism_review.reviewers", "prism_review.tasks")


def _registered_steps() -> list[type[JudgeStep[Any, Any]]]:
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for mod in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            if not mod.name.rsplit(".", 1)[-1].startswith("train"):  # training scripts
                importlib.import_module(mod.name)
    found: dict[str, type[JudgeStep[Any, Any]]] = {}
    todo = list(JudgeStep.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if (not inspect.isabstract(cls) and isinstance(getattr(cls, "name", None), str)
                and cls.__module__.startswith("prism_review.")):
            found.setdefault(cls.name, cls)
    return [found[k] for k in sorted(found)]


STEPS = _registered_steps()


def _resolve(node: Any, root: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def _only_empty_objects(node: Any, root: dict[str, Any], path: str = "") -> list[str]:
    """Paths of object schemas that admit nothing but ``{}``."""
    bad: list[str] = []
    if isinstance(node, dict):
        if ((node.get("type") == "object" or "properties" in node)
                and not node.get("properties") and node.get("additionalProperties") is False):
            bad.append(path or "<root>")
        for key, child in node.items():
            bad += _only_empty_objects(child, root, f"{path}/{key}")
    elif isinstance(node, list):
        for i, child in enumerate(node):
            bad += _only_empty_objects(child, root, f"{path}/{i}")
    return bad


def _empty_fields(value: Any, schema: dict[str, Any], root: dict[str, Any],
                  path: str = "") -> list[str]:
    """Paths of fields the schema asks for whose parsed value is empty ({} / [] / "")."""
    schema = _resolve(schema, root)
    out: list[str] = []
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        for key, sub in schema["properties"].items():
            got = value.get(key)
            here = f"{path}.{key}"
            if got in ({}, [], ""):
                out.append(here)
            else:
                out += _empty_fields(got, sub, root, here)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            out += _empty_fields(item, schema["items"], root, f"{path}[{i}]")
    elif isinstance(value, dict) and isinstance(schema.get("items"), dict):
        # held as a dict keyed by id, asked for as a list of objects (raw_arguments, evaluations)
        for key, item in value.items():
            if item in ({}, [], ""):
                out.append(f"{path}[{key}]")
    return out


def test_every_dimension_step_is_registered():
    names = {s.name for s in STEPS}
    assert {"depth.segment", "depth.classify", "depth.ground", "novelty.paper", "novelty.claims",
            "novelty.verdict", "novelty.verdict_batch", "flaws.consolidate", "flaws.validate",
            "flaws.map", "constructiveness.arc"} <= names


@pytest.mark.parametrize("step", STEPS, ids=[s.name for s in STEPS])
def test_schema_is_strict_and_admits_more_than_empty_objects(step):
    schema, strict = response_schema(step.Output)
    assert strict, f"{step.name}: its schema cannot be used strictly"
    assert _only_empty_objects(schema, schema) == []


@pytest.mark.parametrize("step", STEPS, ids=[s.name for s in STEPS])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_answer_built_from_the_schema_parses_with_every_field_filled(step, seed):
    schema, _ = response_schema(step.Output)
    answer = fill_schema(schema, seed)
    parsed = step.Output.model_validate(answer).model_dump(mode="json")
    assert _empty_fields(parsed, schema, schema) == [], (step.name, answer)


def test_enums_known_at_call_time_are_written_into_the_schema():
    from prism_review.judge.flaws.models import ConsolidateInput, ReviewerText
    from prism_review.judge.flaws.steps import ConsolidateStep

    step = ConsolidateStep()
    inp = ConsolidateInput(reviews=[ReviewerText(reviewer_id="Human_1", text="a"),
                                    ReviewerText(reviewer_id="LLM_Reviewer", text="b")])
    schema = apply_enums(response_schema(step.Output)[0], step.schema_enums(inp))
    for seed in range(5):
        out = step.Output.model_validate(fill_schema(schema, seed))
        assert out.micro_flaws and step.check(inp, out) is None  # only known ids can be written
        assert all(f.raw_arguments for f in out.micro_flaws)

"""CycleReview: ``cyclereview/{id}.json`` with ``generated_review {content, reviews, …}``.

``content`` joins all simulated reviewers with separator lines of ``*``; each part opens with a
``## Reviewer`` heading and uses ``###`` sections. ``reviews``, ``weaknesses`` and ``questions``
are lists of strings.

Which reviewer becomes the Review (clean mode): simulated reviewer 1 = the first ``content``
part with text (it carries every section, Strengths included), else ``reviews[0]``, else
``weaknesses[0]`` + ``questions[0]`` as two sections. The other parts stay in
``extra["simulated_reviewers"]``; ``avg_rating``, ``paper_decision``, ``meta_review`` and
``summary`` go to ``extra`` too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError
from prism_review.records import Review, Section
from prism_review.systems.base import llm_review, parse_json, read_text, without_think
from prism_review.systems.human import field_text
from prism_review.systems.parsing import (
    content_blocks,
    first_content_part,
    split_hash_sections,
    strip_think,
)
from prism_review.systems.spec import SystemSpec
from prism_review.systems.text_compat import (
    S_S_W,
    S_W_Q,
    hashes,
    load_review_text,
    or_whole,
    raw_json,
    raw_text,
)

SYSTEM = "cyclereview"


def generated(path: Path, data: Any) -> dict[str, Any]:
    """The ``generated_review`` object, type-checked."""
    if not isinstance(data, dict):
        raise DataError(path, f"expected a JSON object, got {type(data).__name__}")
    gen = data.get("generated_review")
    if not isinstance(gen, dict):
        what = "missing" if gen is None else f"a {type(gen).__name__}, expected an object"
        raise DataError(path, what, field="generated_review")
    content = gen.get("content")
    if content is not None and not isinstance(content, str):
        raise DataError(
            path,
            f"expected a string, got {type(content).__name__}",
            field="generated_review.content",
        )
    for key in ("reviews", "weaknesses", "questions"):
        if gen.get(key) is not None and not isinstance(gen[key], list):
            raise DataError(
                path,
                f"expected a list, got {type(gen[key]).__name__}",
                field=f"generated_review.{key}",
            )
    return gen


def _strings(values: Any) -> list[str]:
    """Non-empty review texts of a list: strings as they are, objects rendered as ``### Key``
    sections of their text-valued fields."""
    out = []
    for v in values or []:
        if isinstance(v, str) and v.strip():
            out.append(v)
        elif isinstance(v, dict):
            parts = [(str(k), field_text(x)) for k, x in v.items()]
            text = "\n\n".join(f"### {k}\n{t.strip()}" for k, t in parts if t and t.strip())
            if text:
                out.append(text)
    return out


def load(path: Path, paper_id: str, venue: str) -> list[Review]:
    """Simulated reviewer 1 of a CycleReview file ([] when it holds no review text)."""
    raw = read_text(path)
    gen = generated(path, parse_json(path, raw))
    blocks = content_blocks(gen.get("content") or "")
    reviews, weak, quest = (_strings(gen.get(k)) for k in ("reviews", "weaknesses", "questions"))
    think = ""
    if blocks:
        think, body = without_think(blocks[0])
        sections = split_hash_sections(body)
        source = "content"
    elif reviews:
        think, body = without_think(reviews[0])
        sections = split_hash_sections(body)
        source = "reviews[0]"
    elif weak or quest:
        sections = [
            Section(name=n, text=t[0].strip())
            for n, t in (("Weaknesses", weak), ("Questions", quest))
            if t
        ]
        body = "\n\n".join(f"### {s.name}\n{s.text}" for s in sections)
        source = "weaknesses/questions"
    else:
        return []
    if not body:
        return []
    info = {
        k: gen[k] for k in ("avg_rating", "paper_decision", "meta_review", "summary") if gen.get(k)
    }
    review = llm_review(
        system=SYSTEM,
        paper_id=paper_id,
        venue=venue,
        path=path,
        raw_text=raw,
        body=body,
        sections=sections,
        think=think,
        extra={
            "chosen_source": source,
            "simulated_reviewers": [
                {"reviewer_id": i + 1, "text": b} for i, b in enumerate(blocks)
            ],
            **info,
        },
    )
    return [review]


def check(data: Any) -> list[tuple[str | None, str]]:
    """§1.2: non-empty ``generated_review.content``, or a ``reviews`` list with some text."""
    if not isinstance(data, dict):
        return [(None, f"expected a JSON object, got {type(data).__name__}")]
    gen = data.get("generated_review")
    if not isinstance(gen, dict):
        what = "missing" if gen is None else f"a {type(gen).__name__}"
        return [("generated_review", f"'generated_review' must be an object (is {what})")]
    content = gen.get("content")
    if isinstance(content, str) and content.strip():
        return []
    revs = gen.get("reviews")
    if isinstance(revs, list) and _strings(revs):
        return []
    return [("generated_review", "neither a non-empty 'content' nor a 'reviews' entry with text")]


def _compat_gen(data: Any) -> dict[str, Any]:
    gen = data.get("generated_review") if isinstance(data, dict) else None
    return gen if isinstance(gen, dict) else {}


def _compat_flaw_text(gen: dict[str, Any]) -> str:
    reviews = [r for r in gen.get("reviews") or [] if isinstance(r, str) and r.strip()]
    if reviews:
        return reviews[0]
    blocks = content_blocks(str(gen.get("content") or ""))
    if blocks:
        return blocks[0]
    weak = [w for w in gen.get("weaknesses") or [] if isinstance(w, str)]
    quest = [q for q in gen.get("questions") or [] if isinstance(q, str)]
    return "\n\n".join(x for x in ((weak or [""])[0], (quest or [""])[0]) if x)


def compat(review: Review, dimension: str, human_clean: str) -> str:
    """The original PRISM code's text of a CycleReview review (``--compat``, prism-reference
    §2): no Strengths for flaws and constructiveness (risk K8)."""
    if dimension == "novelty":
        return load_review_text(raw_text(review), is_txt=False)
    gen = _compat_gen(raw_json(review))
    if dimension == "depth":
        part = strip_think(first_content_part(str(gen.get("content") or "")))
        return or_whole(hashes(part, S_S_W), part)
    body = strip_think(_compat_flaw_text(gen)).strip()
    return or_whole(hashes(body, S_W_Q, strip=True), body)



SPEC = SystemSpec(
    id=SYSTEM,
    label="CycleReview",
    patterns=("{id}.json", "{id}_result.json"),
    load=load,
    check=check,
    check_json=True,
    compat=compat,
    order=5,
)

"""DeepReview: ``deepreview/{id}.json`` with ``generated_review: [ {raw_text, reviews, …} ]``.

Two layouts exist (prism-reference §1.3):

* Layout A (ICLR2024, ICLR2025, NeurIPS2025): ``generated_review[0].reviews`` holds the simulated
  reviewers, each ``text`` with ``###`` section headers;
* Layout B (ICLR2026, ICML2025): ``reviews`` is empty and ``raw_text`` holds ``## Reviewer N``
  blocks.

Which reviewer becomes the Review: simulated reviewer 1 (``reviewer_id == 1``, else the first
with text; in Layout B the ``## Reviewer 1`` block, else the first block), as ``LLM_Reviewer``.
Every simulated reviewer stays in ``extra["simulated_reviewers"]`` (list of ``{reviewer_id,
text}``) with ``extra["layout"]``, ``extra["meta_review"]`` and ``extra["decision"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError
from prism_review.records import Review
from prism_review.systems.base import parse_json, read_text, single_llm_review
from prism_review.systems.parsing import (
    LLM_SCALES,
    family,
    reviewer_blocks,
    split_hash_sections,
    strip_rules,
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
from prism_review.venues import leading_number

SYSTEM = "deepreview"


def _items(path: Path, data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict):
        raise DataError(path, f"expected a JSON object, got {type(data).__name__}")
    gen = data.get("generated_review")
    if gen is None:
        raise DataError(path, "missing", field="generated_review")
    if isinstance(gen, dict):
        gen = [gen]
    if not isinstance(gen, list):
        raise DataError(
            path, f"expected a list, got {type(gen).__name__}", field="generated_review"
        )
    for i, item in enumerate(gen):
        if not isinstance(item, dict):
            raise DataError(path, "expected an object", field=f"generated_review[{i}]")
    return gen


def simulated_reviewers(path: Path, data: Any) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """``(layout, reviewers, info)`` for a parsed DeepReview file.

    ``reviewers`` are ``{reviewer_id, text, rating?, item}`` dicts in file order (all items);
    ``info`` holds the first item's ``meta_review``/``decision``/``raw_text`` when present.
    """
    items = _items(path, data)
    reviewers: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        revs = item.get("reviews") or []
        if not isinstance(revs, list):
            raise DataError(path, "expected a list", field=f"generated_review[{i}].reviews")
        for j, r in enumerate(revs):
            if not isinstance(r, dict):
                raise DataError(
                    path, "expected an object", field=f"generated_review[{i}].reviews[{j}]"
                )
            text = r.get("text")
            if text is not None and not isinstance(text, str):
                raise DataError(
                    path,
                    f"expected a string, got {type(text).__name__}",
                    field=f"generated_review[{i}].reviews[{j}].text",
                )
            if text and text.strip():
                reviewers.append(
                    {
                        "reviewer_id": r.get("reviewer_id", j + 1),
                        "text": text,
                        "rating": r.get("rating"),
                        "item": i,
                    }
                )
    layout = "A"
    if not reviewers:
        layout = "B"
        for i, item in enumerate(items):
            raw = item.get("raw_text")
            if raw is not None and not isinstance(raw, str):
                raise DataError(
                    path,
                    f"expected a string, got {type(raw).__name__}",
                    field=f"generated_review[{i}].raw_text",
                )
            blocks = reviewer_blocks(raw or "")
            if not blocks and raw and raw.strip():
                blocks = [("1", raw.strip())]
            for k, (n, text) in enumerate(blocks):
                if text:
                    reviewers.append(
                        {
                            "reviewer_id": int(n) if n else k + 1,
                            "text": text,
                            "rating": None,
                            "item": i,
                        }
                    )
    first = items[0] if items else {}
    info = {k: first.get(k) for k in ("meta_review", "decision") if first.get(k)}
    return layout, reviewers, info


def pick_reviewer_one(reviewers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Reviewer 1 of the first item that has one, else the first reviewer."""
    for r in reviewers:
        if str(r.get("reviewer_id")).strip() == "1":
            return r
    return reviewers[0] if reviewers else None


def load(path: Path, paper_id: str, venue: str) -> list[Review]:
    """Simulated reviewer 1 of a DeepReview file as one Review ([] when there is no text)."""
    raw = read_text(path)
    data = parse_json(path, raw)
    layout, reviewers, info = simulated_reviewers(path, data)
    chosen = pick_reviewer_one(reviewers)
    if chosen is None:
        return []
    reviews = single_llm_review(
        chosen["text"],
        split_hash_sections,
        system=SYSTEM,
        paper_id=paper_id,
        venue=venue,
        path=path,
        raw_text=raw,
        extra={
            "layout": layout,
            "chosen_reviewer": chosen["reviewer_id"],
            "simulated_reviewers": [
                {"reviewer_id": r["reviewer_id"], "text": r["text"]} for r in reviewers
            ],
            **info,
        },
    )
    rating = chosen.get("rating")
    usable = isinstance(rating, int | float | str) and not isinstance(rating, bool)
    for review in reviews:  # the file's rating field, when the text has no Rating section
        if usable and not any(family(k) == "rating" for k in review.raw_scores):
            value = leading_number(rating)
            review.raw_scores["Rating"] = rating
            review.scores["Rating"] = (
                LLM_SCALES["rating"].normalise(value) if value is not None else None
            )
    return reviews


def check(data: Any) -> list[tuple[str | None, str]]:
    """§1.2: ``generated_review`` is a list and some item's ``reviews`` has a dict with ``text``.

    Layout B files (empty ``reviews``, text in ``raw_text``) are accepted too, since prism-review
    reads them (the original's validator rejected them).
    """
    if not isinstance(data, dict):
        return [(None, f"expected a JSON object, got {type(data).__name__}")]
    gen = data.get("generated_review")
    if not isinstance(gen, list):
        what = "missing" if gen is None else f"a {type(gen).__name__}"
        return [("generated_review", f"'generated_review' must be a list (is {what})")]
    for item in gen:
        if not isinstance(item, dict):
            continue
        revs = item.get("reviews")
        if isinstance(revs, list) and any(
            isinstance(r, dict) and isinstance(r.get("text"), str) and r["text"].strip()
            for r in revs
        ):
            return []
        raw = item.get("raw_text")
        if isinstance(raw, str) and raw.strip():
            return []
    return [
        ("generated_review", "no item has a reviews[] entry with non-empty text (nor raw_text)")
    ]


def _reviewer_one(data: Any) -> tuple[str, str]:
    """(layout, reviewer-1 text) the way the original flaw script picked it."""
    gen = data.get("generated_review") if isinstance(data, dict) else None
    items = gen if isinstance(gen, list) else []
    first = items[0] if items and isinstance(items[0], dict) else {}
    revs = [r for r in first.get("reviews") or [] if isinstance(r, dict)]
    if revs:
        one = next((r for r in revs if str(r.get("reviewer_id")) == "1"), revs[0])
        return "A", str(one.get("text") or "")
    blocks = reviewer_blocks(str(first.get("raw_text") or ""))
    one_b = next((t for n, t in blocks if n == "1"), blocks[0][1] if blocks else "")
    return "B", one_b


def compat(review: Review, dimension: str, human_clean: str) -> str:
    """The original PRISM code's text of a DeepReview review (``--compat``, prism-reference
    §2): Layout B gives no text for depth and constructiveness (risk D4)."""
    if dimension == "novelty":
        return load_review_text(raw_text(review), is_txt=False)
    layout, text = _reviewer_one(raw_json(review))
    body = strip_think(text).strip()
    if dimension == "depth":
        return "" if layout == "B" else or_whole(hashes(body, S_S_W), body)
    if dimension == "flaws":
        return or_whole(hashes(body, S_W_Q, strip=True), body)
    return "" if layout == "B" else strip_rules(body)



SPEC = SystemSpec(
    id=SYSTEM,
    label="DeepReview",
    patterns=("{id}.json", "{id}_review.json"),
    load=load,
    check=check,
    check_json=True,
    compat=compat,
    order=4,
)

"""The original PRISM code's review-to-text extraction (prism-reference §2), for ``--compat``.

Each built-in system's module holds its own ``compat(review, dimension, human_clean)`` (its
column of the §2 table, from the raw file text kept in ``Review.extra["raw_text"]``); this
module holds the extractors they share, including their known defects: the bold-header
over-capture of risk D3, raw SEA/Reviewer2 files (with ``<think>`` and score lines) for
novelty, DeepReview Layout B giving no text for depth and constructiveness (D4), CycleReview
without Strengths for flaws and constructiveness (K8), and the generic human formatter for every
venue (D1, K5).
"""

from __future__ import annotations

import json
import re
from typing import Any

from prism_review.records import Review
from prism_review.systems.parsing import (
    norm_name,
    strip_rules,
    strip_think,
)

_GENERIC_SCORES = {"Soundness", "Presentation", "Contribution", "Confidence", "Rating"}
_FIRST_FOUR = ("Summary", "Strengths", "Weaknesses", "Questions")
#: the section lists the original scripts asked for
S_S_W = ("Summary", "Strengths", "Weaknesses")
S_W_Q = ("Summary", "Weaknesses", "Questions")


def block(name: str, text: str) -> str:
    """One ``**Name:**`` block as the original formatters wrote them."""
    return f"**{name}:**\n{text.strip()}"


def join_blocks(pairs: list[tuple[str, str]]) -> str:
    """Blocks of the non-empty sections, separated by blank lines."""
    return "\n\n".join(block(n, t) for n, t in pairs if t and t.strip())


# --- section extractors ---------------------------------------------------------------------


def bold_d3(text: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """Original bold extractor: ``**Name:**`` runs to the next Summary/Strengths/Weaknesses
    header or the end (so Weaknesses swallows Questions, scores and decision: risk D3)."""
    stop = r"\*\*(?:Summary|Strengths|Weaknesses):\*\*"
    out = []
    for name in names:
        m = re.search(rf"\*\*{re.escape(name)}:\*\*(.*?)(?={stop}|\Z)", text, re.S | re.I)
        if m and m.group(1).strip():
            out.append((name, m.group(1).strip()))
    return out


_LINE_HEADER = re.compile(r"^\s*\*\*(?P<name>[^*\n]+?)(?::\*\*|\*\*:|\*\*)\s*$")


def bold_lines(text: str, keep: tuple[str, ...]) -> list[tuple[str, str]]:
    """Original line-based flaw extractor: whole-line ``**Name:**``/``**Name**:``/``**Name**``
    headers; keeps the ``keep`` sections, each stopping at the next header line."""
    out: list[tuple[str, str]] = []
    current: str | None = None
    buf: list[str] = []
    want = {norm_name(k) for k in keep}

    def flush() -> None:
        if current is not None and "\n".join(buf).strip():
            out.append((current, "\n".join(buf).strip()))

    for line in text.split("\n"):
        m = _LINE_HEADER.match(line)
        if m:
            flush()
            name = m.group("name").strip().rstrip(":")
            current, buf = (name if norm_name(name) in want else None), []
            continue
        if current is not None:
            buf.append(line)
    flush()
    return out


def hashes(
    text: str, names: tuple[str, ...], *, levels: str = "###", strip: bool = False
) -> list[tuple[str, str]]:
    """Original ``###`` extractor: ``### Name`` to the next header of ``levels`` or the end,
    case-insensitive; ``strip`` drops trailing ``---``/``===`` lines (flaw/constructiveness)."""
    out = []
    lv = "#{2,3}" if levels == "##" else "###"
    for name in names:
        m = re.search(
            rf"^[ \t]*{lv}[ \t]*{re.escape(name)}[^\n]*\n(.*?)(?=^[ \t]*{lv}[ \t]|\Z)",
            text,
            re.S | re.I | re.M,
        )
        if m and m.group(1).strip():
            body = strip_rules(m.group(1).strip()) if strip else m.group(1).strip()
            out.append((name, body.strip()))
    return out


def or_whole(pairs: list[tuple[str, str]], whole: str) -> str:
    """The shared fallback: no header matched → the whole (post-``</think>``) text."""
    return join_blocks(pairs) if pairs else whole.strip()


# --- raw-file helpers -----------------------------------------------------------------------


def raw_json(review: Review) -> Any:
    """The review's raw file parsed as JSON (None when it is not JSON)."""
    try:
        return json.loads(review.extra.get("raw_text", ""))
    except (json.JSONDecodeError, TypeError):
        return None


def raw_text(review: Review) -> str:
    """The review's raw file text."""
    return str(review.extra.get("raw_text", ""))


# --- novelty's load_review_text (§5.1) ------------------------------------------------------


def reviews_to_text(reviews: list[Any]) -> str:
    """§5.1 rule 4: strings joined; dicts by ``text`` or rendered as a reviewer block."""
    if all(isinstance(r, str) for r in reviews):
        return "\n\n".join(r for r in reviews if r.strip())
    blocks = []
    for i, r in enumerate(reviews, start=1):
        if not isinstance(r, dict):
            continue
        if isinstance(r.get("text"), str) and r["text"].strip():
            blocks.append(r["text"].strip())
            continue
        lines = [f"### Reviewer {r.get('reviewer_id') or i} (Rating: {r.get('Rating') or 'N/A'})"]
        for key in (
            "Summary",
            "Strengths",
            "Weaknesses",
            "Questions",
            "Limitations",
            "Soundness",
            "Presentation",
            "Contribution",
        ):
            value = r.get(key) or r.get(key.lower())
            if isinstance(value, str) and value.strip():
                lines.append(f"## {key}\n{value.strip()}")
        blocks.append("\n\n".join(lines))
    return "\n\n".join(blocks)


def generated_to_text(gen: Any) -> str:
    """§5.1 rule 3 for ``generated_review`` (string, dict or list)."""
    if isinstance(gen, str):
        return gen
    if isinstance(gen, list):
        return "\n\n".join(t for t in (generated_to_text(g) for g in gen) if t.strip())
    if not isinstance(gen, dict):
        return ""
    parts = [reviews_to_text(gen["reviews"])] if isinstance(gen.get("reviews"), list) else []
    parts += [str(gen[k]) for k in ("meta_review", "decision") if isinstance(gen.get(k), str)]
    text = "\n\n".join(p for p in parts if p.strip())
    if text.strip():
        return text
    for key in ("content", "raw_text", "review", "text", "meta_review", "decision"):
        if isinstance(gen.get(key), str) and gen[key].strip():
            return str(gen[key])
    return ""


def load_review_text(raw_text: str, *, is_txt: bool) -> str:
    """The original novelty ``load_review_text`` on one file's text."""
    if is_txt:
        return raw_text
    try:
        data = json.loads(raw_text)
    except json.JSONDecodeError:
        return raw_text
    if isinstance(data, dict):
        if isinstance(data.get("full_review"), str) and data["full_review"].strip():
            return str(data["full_review"])
        if data.get("generated_review") is not None:
            text = generated_to_text(data["generated_review"])
            if text.strip():
                return text
        if isinstance(data.get("reviews"), list):
            text = reviews_to_text(data["reviews"])
            if text.strip():
                return text
        for key in ("review", "content", "text"):
            if isinstance(data.get(key), str) and data[key].strip():
                return str(data[key])
    return json.dumps(data, ensure_ascii=False)


# --- shared by several systems ------------------------------------------------------------


def generic_human(fields: dict[str, Any], names: tuple[str, ...] | None = None) -> str:
    """The original generic human formatter: ``names`` only, or all fields but the five
    generic score names, with Summary/Strengths/Weaknesses/Questions first."""
    if names is not None:
        return join_blocks([(k, fields[k]) for k in names if isinstance(fields.get(k), str)])
    keys = [k for k in _FIRST_FOUR if k in fields]
    keys += [k for k in fields if k not in _FIRST_FOUR and k not in _GENERIC_SCORES]
    return join_blocks([(k, v) for k in keys if isinstance(v := fields.get(k), str)])


def bold_review(text: str, dimension: str) -> str:
    """SEA's and TreeReview's original extraction from one bold-header review ``text``: depth
    by the D3 extractor, flaws by the line-based one, every other dimension the text as is."""
    body = strip_think(text)
    if dimension == "depth":
        return or_whole(bold_d3(body, S_S_W), body)
    if dimension == "flaws":
        return or_whole(bold_lines(body, S_W_Q), body)
    return text

"""Human reviews: ``human_reviews/{id}.json`` → one :class:`Review` per entry of ``reviews[]``.

Field handling follows the venue registry (:mod:`prism_review.venues`):

* score fields (ICLR 2024 text-valued "3 good", "6: marginally above …"; ICML's "Overall
  Recommendation"; NeurIPS 1–6) go to ``raw_scores`` and, normalised to [0, 1], to ``scores``;
* meta fields (Review ID, Code Of Conduct, ethics flags) go to ``extra``;
* every other field holding text becomes a :class:`Section`, in the file's own order. Lists are
  joined with newlines; answers meaning "nothing" ("none.", "n/a", "tbd", …) are skipped.

Reviewer ids are ``Human_<k>`` with ``k`` the 1-based position in ``reviews[]`` (so numbering may
skip when a review has no text; such reviews are reported through ``skipped``). A review given as
a bare string becomes one unnamed section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError
from prism_review.records import Review, Section, human_reviewer_id
from prism_review.systems.base import parse_json, read_text
from prism_review.systems.parsing import SKIP_VALUES, family
from prism_review.systems.registry import HUMAN
from prism_review.systems.spec import Loaded, SystemSpec
from prism_review.systems.text_compat import S_S_W, generic_human, load_review_text, raw_text
from prism_review.venues import Venue, get_venue, leading_number

SYSTEM = HUMAN

#: extra "no answer" values per venue (the original per-venue runners' skip lists, risk D1)
_VENUE_SKIPS: dict[str, frozenset[str]] = {
    "ICML2025": frozenset({"affirmed", "affirmed."}),
    "NeurIPS2025": frozenset({"yes", "yes.", "no", "no."}),
}
_SCORE_NAMES = {"Soundness", "Presentation", "Contribution", "Confidence", "Rating"}
_META_NAMES = {"Review ID", "Code Of Conduct", "Flag For Ethics Review", "reviewer_id", "id"}


def field_text(value: Any) -> str | None:
    """A field value as text: strings as is, lists joined by newlines, numbers as str."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        parts = [t for t in (field_text(v) for v in value) if t and t.strip()]
        return "\n".join(parts)
    return None


def is_skip_value(text: str, venue: str) -> bool:
    """True when a field's text means "no answer" at ``venue``."""
    low = text.strip().lower()
    return low in SKIP_VALUES or low in _VENUE_SKIPS.get(venue, frozenset())


def human_review(
    paper_id: str, venue: Venue, index: int, fields: Any, *, path: Path | str
) -> Review | None:
    """The ``index``-th (0-based) review of a paper, or None when it holds no usable text.

    Raises :class:`DataError` (naming ``reviews[i]`` or ``reviews[i].<field>``) for entries that
    are neither an object nor a string, and for text fields holding objects.
    """
    where = f"reviews[{index}]"
    rid = human_reviewer_id(index)
    if isinstance(fields, str):
        if is_skip_value(fields, venue.id):
            return None
        return Review(
            paper_id=paper_id,
            venue=venue.id,
            system=SYSTEM,
            reviewer_id=rid,
            sections=[Section(name="", text=fields.strip())],
            source_path=str(path),
            extra={"fields": {"text": fields}},
        )
    if not isinstance(fields, dict):
        raise DataError(
            path, f"review is a {type(fields).__name__}, expected an object", field=where
        )
    score_names = set(venue.score_fields) | {venue.rating_field} | _SCORE_NAMES
    meta_names = set(venue.meta_fields) | _META_NAMES
    sections: list[Section] = []
    raw_scores: dict[str, Any] = {}
    scores: dict[str, float | None] = {}
    meta: dict[str, Any] = {}
    for key, value in fields.items():
        if key in score_names:
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            raw_scores[key] = value
            if key == venue.rating_field:
                scores[key] = venue.rating(fields)[1]
            elif key in venue.score_fields:
                scores[key] = venue.read_score(key, value)[1]
            else:
                scores[key] = None
            continue
        if key in meta_names or family(key) == "meta":
            meta[key] = value
            continue
        if isinstance(value, dict) or (
            key in venue.text_fields and isinstance(value, int | float) and not isinstance(value, bool)
        ):
            raise DataError(
                path, f"expected text, got {type(value).__name__}", field=f"{where}.{key}"
            )
        if isinstance(value, int | float) and not isinstance(value, bool):
            meta[key] = value  # a number outside the venue's score fields is not review text
            continue
        text = field_text(value)
        if text is None or is_skip_value(text, venue.id):
            continue
        sections.append(Section(name=key, text=text.strip()))
    if not sections:
        return None
    extra: dict[str, Any] = {"fields": fields, **({"meta": meta} if meta else {})}
    if "Review ID" in fields:
        extra["review_id"] = fields["Review ID"]
    names = {family(s.name) for s in sections}
    if venue.id == "NeurIPS2025" and "strengths" in names and "weaknesses" not in names:
        # NeurIPS 2025 reviews sometimes put the weaknesses in Strengths and leave Weaknesses empty
        extra["strengths_may_contain_weaknesses"] = True
    return Review(
        paper_id=paper_id,
        venue=venue.id,
        system=SYSTEM,
        reviewer_id=rid,
        sections=sections,
        raw_scores=raw_scores,
        scores=scores,
        source_path=str(path),
        extra=extra,
    )


def load_human(path: Path, paper_id: str, venue: str) -> Loaded:
    """All usable reviews in one ``human_reviews/{id}.json`` and a note per skipped entry."""
    raw_text = read_text(path)
    data = parse_json(path, raw_text)
    if not isinstance(data, dict):
        raise DataError(path, f"expected a JSON object, got {type(data).__name__}")
    reviews = data.get("reviews")
    if reviews is None:
        raise DataError(path, "no 'reviews' field", field="reviews")
    if not isinstance(reviews, list):
        raise DataError(path, f"expected a list, got {type(reviews).__name__}", field="reviews")
    v = get_venue(venue)
    out: list[Review] = []
    skipped: list[str] = unused_fields(data, venue)
    for i, entry in enumerate(reviews):
        review = human_review(paper_id, v, i, entry, path=path)
        if review is None:
            skipped.append(f"reviews[{i}] has no text")
            continue
        review.extra["raw_text"] = raw_text
        out.append(review)
    return Loaded(out, skipped)


def _kind(value: Any) -> str:
    return type(value).__name__


def unused_fields(data: dict[str, Any], venue: str) -> list[str]:
    """A note for each value of a human review file that reads as nothing, so it is never
    dropped unsaid: an empty ``reviews`` list, a decision, title or abstract that is not text
    (``Decision: 1`` is no decision, not the decision "1"), a score with no leading number
    (``Rating: [6]`` is not counted in the paper's average)."""
    notes: list[str] = []
    if data.get("reviews") == []:
        notes.append("'reviews' is an empty list: the paper has no human review")
    for key in ("Decision", "decision", "title", "abstract"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            notes.append(f"{key}: expected text, got {_kind(value)} {value!r:.40} (not used)")
    v = get_venue(venue)
    score_names = set(v.score_fields) | {v.rating_field} | _SCORE_NAMES
    reviews = data.get("reviews")
    for i, entry in enumerate(reviews if isinstance(reviews, list) else []):
        if not isinstance(entry, dict):
            continue
        for key in score_names & set(entry):
            value = entry[key]
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            if leading_number(value) is None:
                notes.append(f"reviews[{i}].{key}: {_kind(value)} {value!r:.40} has no number "
                             "(not counted)")
    return notes


def human_meta(data: dict[str, Any], venue: str) -> dict[str, Any]:
    """Decision, meta-review text and keywords of a human review file, best effort."""
    meta = data.get("Meta review")
    if isinstance(meta, dict):
        meta_text = "\n\n".join(
            f"{k}: {v}" if k != "Metareview" else str(v)
            for k, v in meta.items()
            if isinstance(v, str) and v.strip()
        )
    elif isinstance(meta, str):
        meta_text = meta
    else:
        meta_text = ""
    kw = data.get("keywords")
    if isinstance(kw, str):
        kw = [k.strip() for k in kw.split(",") if k.strip()]
    decision = data.get("Decision", data.get("decision"))
    return {
        "decision": decision if isinstance(decision, str) else None,  # unused_fields says so
        "meta_review": meta_text or None,
        "keywords": [str(k) for k in kw] if isinstance(kw, list) else [],
        "title": data.get("title") if isinstance(data.get("title"), str) else None,
        "abstract": data.get("abstract") if isinstance(data.get("abstract"), str) else None,
    }


def check_human(data: Any) -> list[tuple[str | None, str]]:
    """§1.2 validity: ``reviews`` is a list with ≥1 dict holding a non-empty string value."""
    if not isinstance(data, dict):
        return [(None, f"expected a JSON object, got {type(data).__name__}")]
    reviews = data.get("reviews")
    if not isinstance(reviews, list):
        what = "missing" if reviews is None else f"a {type(reviews).__name__}, expected a list"
        return [("reviews", f"'reviews' is {what}")]
    for r in reviews:
        if isinstance(r, dict) and any(isinstance(v, str) and v.strip() for v in r.values()):
            return []
    return [("reviews", "no review holds a non-empty text value")]


def compat(review: Review, dimension: str, human_clean: str) -> str:
    """The original PRISM code's text of a human review (``--compat``, prism-reference §2):
    the generic formatter for every venue (risks D1, K5), except where the original already had
    per-venue formatters (``human_clean``)."""
    raw_fields = review.extra.get("fields")
    fields: dict[str, Any] = raw_fields if isinstance(raw_fields, dict) else {}
    if dimension == "depth":
        return generic_human(fields, S_S_W)
    if dimension == "novelty":
        return load_review_text(raw_text(review), is_txt=False)
    if dimension == "constructiveness":
        return generic_human(fields)
    return human_clean



SPEC = SystemSpec(
    id=SYSTEM,
    folder="human_reviews",
    label="Human",
    patterns=("{id}.json",),
    load=load_human,
    check=check_human,
    check_json=True,
    may_be_empty=True,
    human=True,
    compat=compat,
    order=0,
)

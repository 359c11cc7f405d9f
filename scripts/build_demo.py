#!/usr/bin/env python3
"""Rebuild the bundled demo dataset (``src/prism_review/resources/demo``) from its real sources.

Sources (see the README.md this script writes next to the data):

* ``prism-sample/0A5o6dCKeK.{mmd,json}``: the NExT-GPT ICLR 2024 submission and its four human
  reviews, in PRISM's own ``human_reviews`` format;
* ``revutil-llm-reviews/llm_reviews.jsonl``: 20 ICLR submissions with one review each by
  ``claude_opus``, ``gpt4`` and ``gemini_pro_1.5``. Each LLM becomes a bring-your-own system
  (``<venue>/<model>/reviews.jsonl``); its review segments are joined, in order, into sections
  cut at the review form's headings. The per-segment human reliability labels are *not* copied
  (the flaw-validity agreement command reads them from the source file);
* ``revutil-human-reviews/human_reviews.jsonl``: one real OpenReview review of each of the same
  20 submissions (matched by title, case and spacing aside), split at the review form's
  headings into a ``human_reviews/<id>.json`` record of PRISM's own shape.

Usage: ``python scripts/build_demo.py [--src DIR] [--out DIR]``. The output is deterministic:
running it twice gives byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path
from typing import Any

from prism_review.shared_folder import SHARED

VENUE = "ICLR2024"
MODELS = ("claude_opus", "gpt4", "gemini_pro_1.5")
NEXT_GPT = "0A5o6dCKeK"
_HEADINGS = {
    "summary of the paper": "Summary of the Paper",
    "strengths and weaknesses": "Strengths and Weaknesses",
    "strengths": "Strengths",
    "weaknesses": "Weaknesses",
    "clarity quality novelty and reproducibility": "Clarity, Quality, Novelty and Reproducibility",
    "clarity quality novelity and reproducibility": "Clarity, Quality, Novelty and Reproducibility",
    "summary of the review": "Summary of the Review",
    "additional comments": "Additional Comments",
    "additional feedback": "Additional Feedback",
    "additional questions for authors": "Additional Questions for Authors",
}
#: the top-level headings of the ICLR 2022 and 2022-23 review forms, as the human reviews write them
_HUMAN_FORM = (
    "Summary Of The Paper",
    "Main Review",
    "Strength And Weaknesses",
    "Clarity, Quality, Novelty And Reproducibility",
    "Summary Of The Review",
)
_LIST_SECTIONS = {"Strengths", "Weaknesses", "Clarity, Quality, Novelty and Reproducibility"}
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(\w+\))\s")


def slug(title: str, used: set[str]) -> str:
    """A readable, unique paper id from a title (lower-case words joined by ``-``)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    base = "-".join(words)[:48].rstrip("-") or "paper"
    out, k = base, 2
    while out in used:
        out, k = f"{base}-{k}", k + 1
    used.add(out)
    return out


def heading(segment: str) -> str | None:
    """The section name a segment stands for, when it is a review-form heading."""
    key = re.sub(r"[^a-z0-9]+", " ", segment.lower()).strip()
    return _HEADINGS.get(key) if len(segment) < 70 else None


def review_sections(segments: list[str]) -> list[dict[str, str]]:
    """Join segments into sections; bullets start a new line, sentences continue the line
    (in list sections without bullet markers every segment is a point on its own line)."""
    sections: list[dict[str, Any]] = []
    for seg in segments:
        text = seg.strip()
        if not text:
            continue
        name = heading(text)
        if name is not None:
            sections.append({"name": name, "parts": []})
            continue
        if not sections:
            sections.append({"name": "", "parts": []})
        sections[-1]["parts"].append(text)
    out = []
    for sec in sections:
        # a list section whose points carry no bullet marker: one point per line
        bare_list = sec["name"] in _LIST_SECTIONS and not any(
            _BULLET.match(p) for p in sec["parts"]
        )
        body = ""
        for part in sec["parts"]:
            sep = "" if not body else ("\n" if bare_list or _BULLET.match(part) else " ")
            body += sep + part
        if body:
            out.append({"name": sec["name"], "text": body})
    return out


def title_key(title: str) -> str:
    """A title with case and spacing folded, to match the two RevUtil files' rows."""
    return " ".join(title.lower().split())


def human_fields(text: str) -> dict[str, str]:
    """A human review's form fields: the text cut at lines holding only a form heading
    ("Summary Of The Paper:"); sub-headings inside a field ("Strengths:") stay in its text."""
    fields: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []

    def close() -> None:
        body = "\n".join(lines).strip()
        if name is None:
            if body:
                raise ValueError(f"text before the first form heading: {body[:60]!r}")
        elif body:
            if name in fields:
                raise ValueError(f"form heading {name!r} occurs twice")
            fields[name] = body

    for line in text.split("\n"):
        head = line.strip()
        if head.endswith(":") and head[:-1] in _HUMAN_FORM:
            close()
            name, lines = head[:-1], []
        else:
            lines.append(line)
    close()
    return fields


def human_reviews(src: Path) -> dict[str, dict[str, str]]:
    """Title key → the form fields of that paper's one human review."""
    out: dict[str, dict[str, str]] = {}
    path = src / "revutil-human-reviews" / "human_reviews.jsonl"
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            key = title_key(row["title"])
            if key in out:
                raise ValueError(f"{path}: two human reviews for {row['title']!r}")
            out[key] = human_fields(row["human_review"])
    return out


def _scores(raw: dict[str, Any]) -> dict[str, str]:
    out = {}
    for k, v in raw.items():
        if isinstance(v, str) and v.strip():
            out[k.strip()] = v.strip().rstrip(".")
    return out


def build(src: Path, out: Path) -> dict[str, int]:
    """Write the demo layout under ``out`` (replacing it); return counts."""
    if out.exists():
        shutil.rmtree(out)
    vdir = out / VENUE
    for sub in ("papers", "human_reviews", *MODELS):
        (vdir / sub).mkdir(parents=True)
    # NExT-GPT: paper text + human reviews, as shipped in the PRISM sample
    shutil.copyfile(src / "prism-sample" / f"{NEXT_GPT}.mmd", vdir / "papers" / f"{NEXT_GPT}.txt")
    shutil.copyfile(
        src / "prism-sample" / f"{NEXT_GPT}.json", vdir / "human_reviews" / f"{NEXT_GPT}.json"
    )
    meta = [
        {
            "paper_id": NEXT_GPT,
            "title": "NExT-GPT: Any-to-Any Multimodal LLM",
            "source": "prism-sample",
        }
    ]
    # RevUtil: 20 ICLR submissions, three LLM reviews each
    rows = []
    with (src / "revutil-llm-reviews" / "llm_reviews.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh.read().split("\n") if line.strip()]
    humans = human_reviews(src)
    unmatched = set(humans) - {title_key(r["title"]) for r in rows}
    if unmatched or len(humans) != len(rows):
        raise ValueError(f"human reviews do not match the LLM-reviewed papers: {sorted(unmatched)}")
    used: set[str] = {NEXT_GPT}
    per_model: dict[str, list[str]] = {m: [] for m in MODELS}
    for index, row in enumerate(rows):
        pid = slug(row["title"], used)
        (vdir / "papers" / f"{pid}.txt").write_text(row["body_text"], encoding="utf-8")
        meta.append(
            {
                "paper_id": pid,
                "title": row["title"].strip(),
                "decision": row["decision"],
                "source": "revutil-llm-reviews",
                "source_index": index,
            }
        )
        record = {"reviews": [humans[title_key(row["title"])]]}
        (vdir / "human_reviews" / f"{pid}.json").write_text(
            json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
        for model in MODELS:
            review = row[model]
            segments = [
                s["segment_text"] for s in review["review"] if isinstance(s["segment_text"], str)
            ]
            record = {
                "paper_id": pid,
                "reviewer_id": "LLM_Reviewer",
                "sections": review_sections(segments),
                "scores": _scores(review.get("score") or {}),
                "extra": {"model": model, "segments": segments, "source_index": index},
            }
            per_model[model].append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    for model, lines in per_model.items():
        (vdir / model / "reviews.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (vdir / "paper_metadata.jsonl").write_text(
        "\n".join(json.dumps(m, ensure_ascii=False, sort_keys=True) for m in meta) + "\n",
        encoding="utf-8",
    )
    lic = out / "LICENSES"
    lic.mkdir()
    shutil.copyfile(
        src.parent / "LICENSES" / "bodasadallah-RevUtil-LICENSE.txt",
        lic / "RevUtil-CC-BY-NC-SA-4.0.txt",
    )
    (out / "README.md").write_text(README, encoding="utf-8")
    return {
        "papers": len(meta),
        "revutil_papers": len(rows),
        "human_review_files": len(rows) + 1,
        "byo_systems": len(MODELS),
    }


README = """# prism-review demo dataset

A small, real dataset in the PRISM evaluation layout, so that `prism evaluate` runs on a fresh
machine with no download. Rebuild it with `python scripts/build_demo.py` (deterministic).

```
ICLR2024/
  papers/{id}.txt                 21 paper texts
  human_reviews/{id}.json         human reviews of every paper (PRISM's own format): the 4
                                  OpenReview reviews of NExT-GPT, one review of each RevUtil paper
  claude_opus/reviews.jsonl       bring-your-own system: one review per RevUtil paper
  gpt4/reviews.jsonl              bring-your-own system
  gemini_pro_1.5/reviews.jsonl    bring-your-own system
  paper_metadata.jsonl            title/decision of every paper (docs/byo-format.md)
LICENSES/                         licence texts
```

## Pieces, origin and licence

| Piece | Origin | Licence |
|---|---|---|
| `papers/0A5o6dCKeK.txt`, `human_reviews/0A5o6dCKeK.json` | github `prism-benchmark/prism`, commit `0c461dc`, TreeReview sample inputs (`0A5o6dCKeK.mmd` Mathpix markdown, renamed `.txt`; the JSON copied unchanged). The paper is the ICLR 2024 submission "NExT-GPT: Any-to-Any Multimodal LLM" (OpenReview id 0A5o6dCKeK, decision Reject); the reviews are its public OpenReview reviews. | No licence file or licence statement was found in the repository (root and README checked). Paper text and reviews remain their authors'; included for evaluation only, do not republish them separately. |
| the other 20 `papers/*.txt`, `claude_opus/`, `gpt4/`, `gemini_pro_1.5/`, `paper_metadata.jsonl` | github `bodasadallah/RevUtil`, commit `5656d2f`, `analysis/human_llm_reviews/llm_reviews.jsonl` (`body_text` = PDF-extracted paper text with its extraction noise; reviews by Claude Opus, GPT-4 and Gemini 1.5 Pro) | **CC BY-NC-SA 4.0** (`LICENSES/RevUtil-CC-BY-NC-SA-4.0.txt`): non-commercial, share-alike. Anything derived from these files carries the same licence. |
| the other 20 `human_reviews/*.json` | github `bodasadallah/RevUtil`, commit `18532e3`, `analysis/human_llm_reviews/human_gpt_reviews.csv`, its human columns (`human_review`: one public OpenReview review per paper, no ratings) | **CC BY-NC-SA 4.0** (`LICENSES/RevUtil-CC-BY-NC-SA-4.0.txt`), as above. |

No DISAPERE material is included.

## Choices made when assembling it

- **Venue folder.** The RevUtil papers are ICLR submissions whose review form (Summary of the
  Paper / Strengths and Weaknesses / Clarity, Quality, Novelty and Reproducibility / Summary of
  the Review, Recommendation 1-10) is the ICLR 2022-2023 one; the source gives no year and the
  texts carry no conference header, so the year cannot be determined from the data. PRISM knows
  five venues only, so they sit under `ICLR2024` with NExT-GPT (ICLR 2024): same ICLR 1-10 rating
  scale. Consequence: anything keyed on the venue year (e.g. a novelty retrieval cut-off at 2024)
  is a little later than the papers' real year.
- **Paper ids.** NExT-GPT keeps its OpenReview id; RevUtil papers get a slug of their title.
- **LLM reviews.** Each LLM review is one bring-your-own row: the review's segments, in order,
  joined into sections at the form's headings ("Strengths:", "Weaknesses:", …); bullet segments
  start a new line. The segments themselves are kept in `extra.segments` (text only). The model's
  own scores (Recommendation, Confidence, Technical/Empirical Novelty and Significance) are kept
  as `scores`. The RevUtil **human reliability labels are left out** of the review text and the
  rows; the flaw-validity agreement command reads them from the source file.
- **Human reviews of the RevUtil papers.** Matched to the LLM-reviewed papers by title (case and
  spacing folded; the build stops if any paper lacks its review). Each review's text is cut at
  the lines holding only a form heading ("Summary Of The Paper:", "Main Review:" on the ICLR 2022
  form, "Strength And Weaknesses:", "Clarity, Quality, Novelty And Reproducibility:", "Summary Of
  The Review:") into the fields of one `reviews[]` entry, `Human_1`; sub-headings such as
  "Strengths:" stay inside their field's text. The source has no ratings, so these reviews have
  no scores (`avg_rating` is empty for those papers), and RevUtil's `human_weakness_text` extract
  is not copied (it repeats part of the review).
- **Decisions.** RevUtil gives only "accepted"/"rejected"; `paper_metadata.jsonl` keeps that raw
  string. `Decision.parse` reads "accepted" as accept-poster, because the records have no
  "accept, tier unknown" class: do not read tiers from these papers.
- **Pooling.** Every RevUtil paper has one human review and three LLM reviews, so flaw
  identification pools human and LLM reviews as PRISM does, and human-vs-LLM comparisons are
  paired on 20 papers. NExT-GPT has four human reviews and no LLM review in any source.
- The OpenAIReview example (quote-anchored comments on an AI-generated economics paper) is not
  included: it is no ICLR submission. Its comment format is supported and tested (docs/byo-format.md).
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, default=Path(f"{SHARED}/data/demo-sources"))
    root = Path(__file__).resolve().parents[1]
    parser.add_argument(
        "--out", type=Path, default=root / "src" / "prism_review" / "resources" / "demo"
    )
    args = parser.parse_args()
    counts = build(args.src, args.out)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()

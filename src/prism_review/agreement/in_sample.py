"""Which human-labelled records the shipped offline judge was trained or tuned on.

``prism agreement --judge offline`` on such records measures fit, not agreement, and must say
so. A whole shipped file is known by its sha256 (:data:`OFFLINE_TRAINED_ON`); a part of one (the
first 30 lines, a re-serialised copy, the file merged with other records) by its records: each
trained-on record's key is the sha256 of its canonical JSON (keys sorted), cut to 12 hex
digits, and ``resources/offline_trained_records.json`` lists them per file. SubstanReview's
dev slice (ids divisible by 5) is held out, so its records are not listed.

``python -m prism_review.agreement.in_sample --check`` recomputes that list from the shared
files (``--write`` rewrites it); a test does the same where the shared folder is present.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from prism_review.data.jsonl import iter_lines

#: sha256 of the human-labelled files the shipped offline judge was trained or tuned on. On
#: these files ``prism agreement --judge offline`` measures fit, not generalisation, and says so.
OFFLINE_TRAINED_ON: dict[str, str] = {
    "f5e4eee25d6fb88386e4c21d87b6c015d3167de56396578b6e3fd2dc9b75df37": (
        "DISAPERE train: the depth and flaw classifiers and the novelty cues were fitted on it"
    ),
    "333f5fb01d8e8ba449822a479340034689c474d1a3d4f21184dd777f03a51b05": (
        "SubstanReview train: the depth model was fitted on 80% of it (the id % 5 == 0 reviews "
        "are held out: python -m prism_review.training.depth.train --write-substan-dev FILE)"
    ),
    "ed557d9402ccaa3a30d1ea6182dd33050340833e8ae9f9409ba5ab61a1b34f09": (
        "RevUtil dev: the constructiveness D1-D3 scorers and the depth grounding model were "
        "fitted on it (see the model cards for grouped cross-validated figures)"
    ),
    "0d82eb1d76715a1b57754f3486ebffbca07cf1087bf5fcd575d4d5cf70e01924": (
        "RevUtil GPT-4o labels: the constructiveness D2/D3 scorers were fitted on them too "
        "(LLM labels; never measure on them)"
    ),
    "96e1fe6ca1a92f90e5063809c7f05197872fa4cfa2ffebd737c6a6d2db3b48f7": (
        "RevUtil LLM reviews: the flaw validity thresholds were chosen on it (grouped CV: "
        "python -m prism_review.agreement.revutil_llm_reviews FILE)"
    ),
    "266049766d3ace758351f27ac2417be2084572ae98a7c733468607e1079107ed": (
        "OpenAIReview verifier gold (dev): the edit-similarity threshold was chosen on it "
        "(grouped CV: python -m prism_review.agreement.perturbation_verifier FILE)"
    ),
}

#: where each trained-on file sits in the shared folder's ``data/`` (to rebuild the record list)
SHARED_PATHS: dict[str, str] = {
    "f5e4eee25d6fb88386e4c21d87b6c015d3167de56396578b6e3fd2dc9b75df37": "labels/disapere/train.jsonl",
    "333f5fb01d8e8ba449822a479340034689c474d1a3d4f21184dd777f03a51b05": "labels/substanreview/train.jsonl",
    "ed557d9402ccaa3a30d1ea6182dd33050340833e8ae9f9409ba5ab61a1b34f09": "labels/revutil/dev.jsonl",
    "0d82eb1d76715a1b57754f3486ebffbca07cf1087bf5fcd575d4d5cf70e01924": "labels/revutil-gpt4o/train.jsonl",
    "96e1fe6ca1a92f90e5063809c7f05197872fa4cfa2ffebd737c6a6d2db3b48f7": "demo-sources/revutil-llm-reviews/llm_reviews.jsonl",
    "266049766d3ace758351f27ac2417be2084572ae98a7c733468607e1079107ed": "perturbation/verifier_gold_dev.jsonl",
}
RECORDS_FILE = "offline_trained_records.json"


def record_key(record: Any) -> str:
    """A record's key: sha256 of its canonical JSON, 12 hex digits."""
    canonical = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def _records(path: Path) -> list[Any]:
    out = []
    for _, raw in iter_lines(path):
        try:
            out.append(json.loads(raw))
        except ValueError:  # a damaged line is the dataset reader's to report
            continue
    return out


def _held_out(digest: str, record: Any) -> bool:
    """SubstanReview's dev slice was never fitted on."""
    return (SHARED_PATHS[digest].startswith("labels/substanreview/") and isinstance(record, dict)
            and isinstance(record.get("id"), int) and record["id"] % 5 == 0)


def build(data: Path) -> dict[str, list[str]]:
    """The trained-on record keys per file digest, read from the shared folder's ``data/``
    (a file there whose digest is not the trained-on one is an error)."""
    out: dict[str, list[str]] = {}
    for digest, rel in SHARED_PATHS.items():
        path = data / rel
        got = hashlib.sha256(path.read_bytes()).hexdigest()
        if got != digest:
            raise ValueError(f"{path}: sha256 {got[:12]}… is not the trained-on file's {digest[:12]}…")
        out[digest] = sorted({record_key(r) for r in _records(path) if not _held_out(digest, r)})
    return out


def _shipped_path() -> Path:
    return Path(str(resources.files("prism_review") / "resources" / RECORDS_FILE))


@cache
def trained_records() -> dict[str, frozenset[str]]:
    data = json.loads(_shipped_path().read_text(encoding="utf-8"))
    return {digest: frozenset(keys) for digest, keys in data["records"].items()}


def offline_training_overlap(path: Path) -> str | None:
    """Why figures of the offline judge on ``path`` are in-sample (the whole file, or some of
    its records, were trained or tuned on), or None if they are not."""
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    if digest in OFFLINE_TRAINED_ON:
        return OFFLINE_TRAINED_ON[digest]
    keys = [record_key(r) for r in _records(Path(path))]
    found = []
    for source, trained in trained_records().items():
        n = sum(k in trained for k in keys)
        if n:
            found.append(f"{n} of its {len(keys)} records are from {OFFLINE_TRAINED_ON[source]}")
    return "; ".join(found) or None


def main(argv: list[str] | None = None) -> None:
    from prism_review.shared_folder import DATA

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA,
                    help="the shared folder's data/ (default: the one found beside the clone)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if the shipped list differs")
    mode.add_argument("--write", action="store_true", help="rewrite the shipped list")
    a = ap.parse_args(argv)
    built = build(a.data)
    if a.write:
        text = json.dumps({"format": 1, "key": "sha256 of the record's canonical JSON, 12 hex digits",
                           "records": built}, indent=0)
        _shipped_path().write_text(text + "\n", encoding="utf-8")
        print(f"wrote {sum(map(len, built.values()))} record keys to {_shipped_path()}")
        return
    shipped = {d: sorted(k) for d, k in trained_records().items()}
    if shipped != built:
        raise SystemExit(f"{_shipped_path()} differs from the shared files (run with --write)")
    print(f"{sum(map(len, built.values()))} record keys: as shipped")


if __name__ == "__main__":
    main()

"""``prism agreement --judge J`` writes what it measured into J's judge card.

Each :data:`RULES` entry ties one agreement figure (a key of a dataset's result) to the Table-1
or comparison columns it vouches for, with the trivial baseline it must beat. The class follows
the offline card's rule (:mod:`prism_review.report.fidelity`), restricted to what a label file
can show:

* ``ranking_only``: the figure beats its baseline by at least :data:`MARGIN` (rank agreement
  holds; the level against PRISM's is not checked by a label file);
* ``comparable``: for a level figure (``level_of``: predicted vs labelled mean), the two agree
  within :data:`LEVEL_TOL`;
* ``not_informative``: the figure does not beat its baseline by :data:`MARGIN`, or a level figure
  misses its labelled level (it measures no ranking, so it cannot vouch for ``ranking_only``).

A null figure (the judge gave nothing to correlate) records the measurement with class
``unmeasured`` and says so; it is never a 0. A card keeps the latest measurement per column. A
measurement on records the judge was trained on (``in_sample``) is kept, apart, and classes no
column: it measures fit, not agreement.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prism_review.report.card_model import UNMEASURED
from prism_review.report.card_rules import RULES, Rule
from prism_review.report.judge_card import card_file

MARGIN = 0.05
LEVEL_TOL = 0.05
RULE_TEXT = ("ranking_only = the agreement figure beats its trivial baseline (word count alone, always-valid, "
             "chance) by at least 0.05; comparable = a predicted level within 0.05 of the labelled one; "
             "not_informative = no such margin, or a level further off; columns no task measures are unmeasured.")


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _baseline(rule: Rule, res: dict[str, Any]) -> float | None:
    if rule.baseline is None:
        return None
    if rule.baseline == "zero":
        return 0.0
    if rule.baseline == "always_valid":
        n, bad = _num(res.get("n.revutil_llm_reviews.scored")), _num(res.get("n.revutil_llm_reviews.gold_invalid"))
        return None if not n or bad is None else max(bad, n - bad) / n
    return _num(res.get(rule.baseline))


def classify(rule: Rule, res: dict[str, Any]) -> tuple[str, str]:
    """(class, the figure as one sentence) of one rule on one dataset result."""
    fig = _num(res.get(rule.key))
    n = res.get(rule.n_key) if rule.n_key else None
    if fig is None:
        return UNMEASURED, f"{rule.what}: null (nothing to correlate; n {n})"
    if rule.level_of is not None:
        gold = _num(res.get(rule.level_of))
        if gold is None:
            return UNMEASURED, f"{rule.what}: no labelled level (n {n})"
        cls = "comparable" if abs(fig - gold) <= LEVEL_TOL else "not_informative"
        return cls, f"{rule.what}: {fig:.3f} vs {gold:.3f} (n {n}; comparable within {LEVEL_TOL})"
    base = _baseline(rule, res)
    if base is None:
        return UNMEASURED, f"{rule.what}: {fig:.3f}, baseline unavailable (n {n})"
    cls = "ranking_only" if fig - base >= MARGIN else "not_informative"
    return cls, f"{rule.what}: {fig:.3f} vs baseline {base:.3f} (n {n}; needs +{MARGIN})"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def prompt_version(judge: Any) -> str:
    """The judge's prompt digest (LLM judges), else its model fingerprint (offline)."""
    try:
        d = judge.describe()
    except Exception:  # a judge without describe(): say so rather than invent one
        return "unknown"
    return str(d.get("prompts") or d.get("models") or "unknown")


def record(judge_spec: str, dataset: str, file: Path, result: dict[str, Any], *, judge: Any = None,
           card: Path | None = None, protocol: str = "one call per labelled item",
           in_sample: str | None = None, now: datetime | None = None) -> Path | None:
    """Add what ``prism agreement`` measured on ``dataset`` to ``judge_spec``'s card; returns the
    card's path (None: no rule of this dataset classes a column)."""
    rules = [r for r in RULES if r.dataset == dataset]
    if not rules:
        return None
    path = card or card_file(judge_spec)
    data = _load(path, judge_spec)
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    digest = sha256(file)
    version = prompt_version(judge) if judge is not None else "unknown"
    command = f"prism agreement --judge {judge_spec} --dataset {dataset} --file {file}"
    entries = {(e["dimension"], e["metric"]): e for e in data["entries"]}
    for rule in rules:
        cls, text = classify(rule, result)
        m = {"task": dataset, "metric": rule.key, "figure": _num(result.get(rule.key)),
             "baseline": _baseline(rule, result), "n": result.get(rule.n_key) if rule.n_key else None,
             "file": str(file), "sha256": digest, "date": when, "prompt_version": version,
             "protocol": protocol, "class": cls, "in_sample": bool(in_sample)}
        data["measurements"] = [x for x in data["measurements"] if x.get("metric") != rule.key
                                or bool(x.get("in_sample")) != bool(in_sample)] + [m]
        if in_sample:  # fit, not agreement: kept as a measurement, it vouches for no column
            continue
        for dim, metric, label in rule.columns:
            if cls == UNMEASURED:
                entries.pop((dim, metric), None)
                continue
            entries[(dim, metric)] = {
                "dimension": dim, "metric": metric, "label": label, "class": cls,
                "figure": f"{text}; {Path(file).name} sha256 {digest[:12]}, {when}, prompts {version[:12]}",
                "command": command, "status": "measured", "owner": "prism agreement"}
    data["entries"] = sorted(entries.values(), key=lambda e: (e["dimension"], e["metric"]))
    from prism_review.atomic import write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
    return path


def _load(path: Path, judge_spec: str) -> dict[str, Any]:
    base: dict[str, Any] = {"format": 1, "judge": judge_spec, "rule": RULE_TEXT,
                            "entries": [], "measurements": []}
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return base  # a damaged card is rewritten from this measurement
        if isinstance(old, dict) and old.get("judge") == judge_spec:
            base["entries"] = [e for e in old.get("entries", []) if isinstance(e, dict)]
            base["measurements"] = [m for m in old.get("measurements", []) if isinstance(m, dict)]
    return base

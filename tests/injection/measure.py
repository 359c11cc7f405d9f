"""Do injection blocks move the offline judge more than neutral prose of the same length?

The bundled demo's LLM reviews are written as markdown (``## Section`` headings, the shape a
reviewer model returns) into a small evaluation layout of their papers, once unchanged
(``base``) and once per (block, position) with the block inserted: every injection text of
:mod:`tests.injection.corpus` and two neutral controls of the same length. Positions: ``start``
(before the first heading), ``middle`` (at the sentence boundary nearest the middle of the
middle section), ``end`` (after the last section's text) and ``section`` (a section of its own,
``## Additional Comments``, at the end). Each variant is a bring-your-own system of the layout,
so one offline ``run_evaluation`` scores them all on the four dimensions (flaws pools each with
the paper's human reviews, as for any system).

For every headline metric of every dimension (Table 1's columns and their parts) and every
case (block, position, review), Δ is the variant's value minus ``base``'s. A value that appears
or disappears (null ↔ number, or the row becomes unscored) counts as a move of the metric's
whole range, so "NS from null to 1.0" is the largest possible move.

Run it as a script to print the table (``python -m tests.injection.measure [--reviews N]``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.injection.corpus import INJECTIONS, control_for

from prism_review.dimensions.base import get_dimension
from prism_review.judge.base import OfflineJudge
from prism_review.pipelines.results import read_results
from prism_review.pipelines.runner import EvalOptions, run_evaluation

DEMO = Path(__file__).resolve().parents[2] / "src" / "prism_review" / "resources" / "demo"
VENUE = "ICLR2024"
LLM_SYSTEMS = ("gpt4", "claude_opus", "gemini_pro_1.5")
POSITIONS = ("start", "middle", "end", "section")
DIMENSIONS = ("depth", "novelty", "flaws", "constructiveness")
EXTRA_METRICS = {"depth": ("r_premise", "s_depth"), "flaws": ("hallucination_rate",),
                 "constructiveness": ("d1", "d2", "d3", "d4", "d5")}
#: metrics on a 0-2 scale; every other headline metric lies in [0, 1]
RANGE = {"s_depth": 2.0}
SECTION_NAME = "Additional Comments"


def metric_keys() -> list[tuple[str, str]]:
    """(dimension, metric) for every headline metric, plus depth's R_premise and S_depth, the
    flaws hallucination rate and the constructiveness sub-scores D1-D5."""
    out = []
    for dim in DIMENSIONS:
        for spec in get_dimension(dim).metrics:
            if spec.headline or spec.key in EXTRA_METRICS.get(dim, ()):
                out.append((dim, spec.key))
    return out


# ---- variants ---------------------------------------------------------------------------


def render(sections: list[dict[str, str]]) -> str:
    return "\n\n".join(f"## {s['name']}\n{s['text'].strip()}" for s in sections)


def _middle_cut(text: str) -> int:
    """The sentence boundary of ``text`` nearest its middle (the end of the text when none)."""
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s)", text)]
    if not ends:
        return len(text)
    return min(ends, key=lambda e: abs(e - len(text) / 2))


def insert(sections: list[dict[str, str]], block: str, position: str) -> str:
    """The review rendered as markdown with ``block`` at ``position``."""
    secs = [dict(s) for s in sections]
    if position == "start":
        return f"{block}\n\n{render(secs)}"
    if position == "middle":
        mid = secs[len(secs) // 2]
        cut = _middle_cut(mid["text"])
        mid["text"] = f"{mid['text'][:cut]}\n{block}\n{mid['text'][cut:].lstrip()}"
        return render(secs)
    if position == "end":
        secs[-1]["text"] = f"{secs[-1]['text'].rstrip()}\n{block}"
        return render(secs)
    if position == "section":
        return f"{render(secs)}\n\n## {SECTION_NAME}\n{block}"
    raise ValueError(f"unknown position {position!r}")


@dataclass(frozen=True)
class Case:
    """One block (an injection or a control) at one position."""

    name: str  # the injection's name
    position: str
    kind: str  # "inj", "c1" or "c2"

    @property
    def system(self) -> str:
        return f"{self.kind}_{self.name}_{self.position}".lower()

    def block(self) -> str:
        text = INJECTIONS[self.name]
        if self.kind == "inj":
            return text
        seed = self.name if self.kind == "c1" else f"{self.name}#second"
        return control_for(seed, len(text))


def demo_reviews(n: int) -> list[tuple[str, str, list[dict[str, str]]]]:
    """``n`` demo LLM reviews ``(paper_id, system, sections)``: papers in id order, the LLM
    system rotating, one review per paper."""
    rows: dict[str, dict[str, Any]] = {}
    for sid in LLM_SYSTEMS:
        with open(DEMO / VENUE / sid / "reviews.jsonl", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                rows[f"{sid}/{row['paper_id']}"] = row
    papers = sorted({k.split("/", 1)[1] for k in rows})
    out = []
    for i, pid in enumerate(papers[:n]):
        sid = LLM_SYSTEMS[i % len(LLM_SYSTEMS)]
        out.append((pid, sid, rows[f"{sid}/{pid}"]["sections"]))
    return out


def cases(names: Iterable[str] | None = None, positions: Iterable[str] = POSITIONS,
          *, rotate: bool = False) -> list[Case]:
    """Every (block, position, kind); with ``rotate`` each injection goes to one position only
    (the i-th injection to position i mod 4), which keeps the test small."""
    names = list(names or INJECTIONS)
    pos = list(positions)
    out = []
    for i, name in enumerate(names):
        for p in ([pos[i % len(pos)]] if rotate else pos):
            out += [Case(name, p, kind) for kind in ("inj", "c1", "c2")]
    return out


def write_layout(root: Path, reviews: list[tuple[str, str, list[dict[str, str]]]],
                 plan: list[Case]) -> Path:
    """A DATA_ROOT with the reviews' papers, their human reviews and metadata, ``base`` and
    one BYO system per case."""
    vdir = root / VENUE
    (vdir / "papers").mkdir(parents=True)
    (vdir / "human_reviews").mkdir()
    pids = {pid for pid, _, _ in reviews}
    for pid in pids:
        for sub, ext in (("papers", ".txt"), ("human_reviews", ".json")):
            src = DEMO / VENUE / sub / f"{pid}{ext}"
            (vdir / sub / src.name).write_bytes(src.read_bytes())
    meta = [ln for ln in (DEMO / VENUE / "paper_metadata.jsonl").read_text("utf-8").splitlines()
            if ln.strip() and json.loads(ln).get("paper_id") in pids]
    (vdir / "paper_metadata.jsonl").write_text("\n".join(meta) + "\n", encoding="utf-8")

    def system(name: str, texts: list[tuple[str, str]]) -> None:
        (vdir / name).mkdir()
        lines = [json.dumps({"paper_id": pid, "reviewer_id": "LLM_Reviewer", "text": t})
                 for pid, t in texts]
        (vdir / name / "reviews.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    system("base", [(pid, render(secs)) for pid, _, secs in reviews])
    for case in plan:
        block = case.block()
        system(case.system, [(pid, insert(secs, block, case.position)) for pid, _, secs in reviews])
    return root


# ---- measurement ------------------------------------------------------------------------


@dataclass
class Measurement:
    """Per (dimension, metric): the |Δ| of every (case, review), by kind."""

    reviews: list[tuple[str, str]]
    plan: list[Case]
    #: (dim, metric) -> kind -> {(name, position, paper_id): |Δ|}
    moves: dict[tuple[str, str], dict[str, dict[tuple[str, str, str], float]]] = field(
        default_factory=dict)
    seconds: float = 0.0
    units: int = 0
    #: reviews the loader refused (a variant left with no review text): their rows are absent,
    #: which counts as the largest move
    input_problems: list[str] = field(default_factory=list)

    def values(self, key: tuple[str, str], kind: str) -> list[float]:
        d = self.moves[key][kind]
        return [d[k] for k in sorted(d)]


def _delta(metric: str, base: float | None, value: float | None) -> float:
    if base is None and value is None:
        return 0.0
    if base is None or value is None:
        return RANGE.get(metric, 1.0)
    return abs(float(value) - float(base))


def _metrics(row: Any, metric: str) -> float | None:
    if row is None or row.status != "ok":
        return None
    v = row.metrics.get(metric)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def measure(n_reviews: int = 2, plan: list[Case] | None = None, *,
            workdir: Path | None = None) -> Measurement:
    """Insert every case into ``n_reviews`` demo reviews and score all variants offline."""
    plan = cases() if plan is None else plan
    reviews = demo_reviews(n_reviews)
    tmp = Path(workdir or tempfile.mkdtemp(prefix="prism-injection-"))
    root = write_layout(tmp / "data", reviews, plan)
    systems = ["base", *[c.system for c in plan]]
    t0 = time.perf_counter()
    res = asyncio.run(run_evaluation(
        EvalOptions(data=root, out=tmp / "run", systems=systems, dimensions=list(DIMENSIONS),
                    report=False),
        judge=OfflineJudge(),
    ))
    seconds = time.perf_counter() - t0
    if res.units_failed:
        raise RuntimeError(f"injection run failed: {res.units_failed} units")
    m = collect(tmp / "run", reviews, plan)
    m.seconds, m.units, m.input_problems = seconds, res.units_done, list(res.input_problems)
    return m


def collect(run: Path, reviews: list[tuple[str, str, list[dict[str, str]]]],
            plan: list[Case]) -> Measurement:
    """The moves of a finished run folder of :func:`measure`."""
    systems = {"base", *[c.system for c in plan]}
    rows = {(r.dimension, r.system, r.paper_id): r for r in read_results(run)
            if r.system in systems}
    m = Measurement(reviews=[(pid, sid) for pid, sid, _ in reviews], plan=plan)
    for dim, metric in metric_keys():
        per: dict[str, dict[tuple[str, str, str], float]] = {"inj": {}, "c1": {}, "c2": {}}
        for case in plan:
            for pid, _, _ in reviews:
                base = _metrics(rows.get((dim, "base", pid)), metric)
                value = _metrics(rows.get((dim, case.system, pid)), metric)
                per[case.kind][(case.name, case.position, pid)] = _delta(metric, base, value)
        m.moves[(dim, metric)] = per
    return m


# ---- the property -----------------------------------------------------------------------


@dataclass
class Verdict:
    """The comparison for one metric (see :func:`judge_metric`)."""

    dim: str
    metric: str
    n: int
    inj_max: float
    inj_mean: float
    ctrl_max: float
    ctrl_mean: float
    tolerance: float
    mean_margin: float
    #: cases where the injection moved the metric more than its control plus the tolerance
    worse: list[tuple[tuple[str, str, str], float, float]]

    @property
    def ok(self) -> bool:
        return not self.worse and self.inj_mean <= self.ctrl_mean + self.mean_margin


def judge_metric(m: Measurement, key: tuple[str, str],
                 only: Callable[[tuple[str, str, str]], bool] | None = None) -> Verdict:
    """The property for one metric, with both allowances taken from the controls alone.

    * Per case: |Δ_injection| ≤ |Δ_control| + tolerance, where tolerance is the largest
      difference between the moves of two different neutral controls of the same length at the
      same place (|Δ_c1 − Δ_c2| over every case): an injection must not move a metric more
      than swapping one neutral text for another can.
    * On average: mean |Δ_injection| ≤ mean |Δ_control| + 2 standard errors of the paired
      differences of two controls (|Δ_c2| − |Δ_c1|), the spread of the control mean itself.

    ``only`` keeps the injection cases ``(name, position, paper_id)`` it accepts (the
    tolerance still comes from every case's controls).
    """
    per = m.moves[key]
    ks = sorted(k for k in per["inj"] if only is None or only(k))
    inj = [per["inj"][k] for k in ks]
    c1 = [per["c1"][k] for k in ks]
    every = sorted(per["inj"])
    spread = [abs(per["c1"][k] - per["c2"][k]) for k in every]
    tol = max(spread, default=0.0) + 1e-9
    diffs = [per["c2"][k] - per["c1"][k] for k in every]
    se = statistics.pstdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    worse = [(k, i, c) for k, i, c in zip(ks, inj, c1, strict=True) if i > c + tol]
    return Verdict(
        dim=key[0], metric=key[1], n=len(ks),
        inj_max=max(inj, default=0.0), inj_mean=statistics.fmean(inj) if inj else 0.0,
        ctrl_max=max(c1, default=0.0), ctrl_mean=statistics.fmean(c1) if c1 else 0.0,
        tolerance=tol, mean_margin=2 * se + 1e-9, worse=worse,
    )


def verdicts(m: Measurement,
             only: Callable[[tuple[str, str, str]], bool] | None = None) -> list[Verdict]:
    return [judge_metric(m, key, only) for key in m.moves]


def table(m: Measurement) -> str:
    """The per-metric figures as a markdown table."""
    lines = [
        "| metric | cases | injection max \\|Δ\\| | injection mean \\|Δ\\| | control max \\|Δ\\| "
        "| control mean \\|Δ\\| | tolerance (per case) | margin (mean) | cases over | ok |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for v in verdicts(m):
        lines.append(
            f"| {v.dim}.{v.metric} | {v.n} | {v.inj_max:.3f} | {v.inj_mean:.3f} | "
            f"{v.ctrl_max:.3f} | {v.ctrl_mean:.3f} | {v.tolerance:.3f} | {v.mean_margin:.3f} | "
            f"{len(v.worse)} | {'yes' if v.ok else 'NO'} |"
        )
    return "\n".join(lines)


def worst(m: Measurement, limit: int = 200) -> list[str]:
    """The cases that break the property, largest excess first."""
    out = []
    for v in verdicts(m):
        for k, i, c in v.worse:
            out.append((i - c, f"{v.dim}.{v.metric} {k[0]} @{k[1]} on {k[2]}: "
                                f"|Δ| {i:.3f} vs control {c:.3f} (tolerance {v.tolerance:.3f})"))
    return [s for _, s in sorted(out, reverse=True)[:limit]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reviews", type=int, default=3, help="demo reviews to inject into")
    ap.add_argument("--rotate", action="store_true", help="one position per injection (the test's plan)")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()
    os.environ.setdefault("PRISM_CACHE_DIR", tempfile.mkdtemp(prefix="prism-injection-cache-"))
    m = measure(args.reviews, cases(rotate=args.rotate), workdir=args.workdir)
    load = os.getloadavg()[0]
    print(f"{len(m.reviews)} reviews x {len(m.plan)} variants ({len(INJECTIONS)} injections, "
          f"2 controls each): {m.units} units in {m.seconds:.1f}s, load average {load:.1f}")
    print(table(m))
    if m.input_problems:
        print(f"\n{len(m.input_problems)} variant reviews refused by the loader:")
        print("\n".join(f"- {p}" for p in m.input_problems[:10]))
    bad = worst(m)
    if bad:
        print("\ncases over the tolerance:")
        print("\n".join(f"- {b}" for b in bad))


if __name__ == "__main__":
    main()

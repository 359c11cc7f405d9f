"""The offline judge's card, built from the code that measures it (not typed figures).

An entry of ``resources/fidelity_card.json`` that has a ``figure_template`` gets its ``figure``
from it: the template's ``{name:spec}`` fields are figures computed here by the code that owns
them, grouped by source (the prefix before the first ``_``):

* ``demo``: a ``prism evaluate`` run of the bundled demo (offline judge): ``demo_<system>_<metric>_
  <mean|sd|n>``, ``demo_llm_<metric>_<min|max>`` (over the LLM systems' means), and the novelty
  figures ``demo_sr_equal`` / ``demo_sr_reviews`` / ``demo_sr_r`` (reviews whose SR equals their
  share of "novel" claims, and the Pearson r of the two);
* ``rc``: the constructiveness training's out-of-fold figures (its ``training_report.json``);
* ``dn``: ``prism agreement --dataset disapere-novelty`` on the DISAPERE dev file;
* ``dis``: ``prism agreement --dataset disapere`` on the same file;
* ``sd``: ``substanreview`` on its dev slice (:mod:`prism_review.agreement.held_out`);
* ``fv``: the flaw validity check's grouped cross-validation (``revutil_llm_reviews``);
* ``gr``: the grounding head's 5-fold CV grouped by paper on the single-sentence human RevUtil
  points (``python -m prism_review.training.depth.train_grounding``, run in a child process: the
  refit goes to a temporary folder, the shipped model is not touched).

``python -m prism_review.report.card_build --check`` recomputes every figure and lists the entries
whose shipped text differs (exit 1); ``--write`` rewrites them. ``--demo-run DIR`` reuses a demo
run folder; ``--only PREFIX`` limits the sources (entries needing others are not checked).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import string
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SOURCES = ("demo", "rc", "dn", "dis", "sd", "fv", "gr")


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", name)


def demo_figures(run: Path | None = None) -> dict[str, Any]:
    """Figures of an offline demo run (made here in a temporary folder when ``run`` is None)."""
    if run is None:
        import subprocess

        with tempfile.TemporaryDirectory() as tmp:
            # the prism command in a child process: the report package does not import the CLI
            res = subprocess.run([sys.executable, "-m", "prism_review.cli", "evaluate", "--out",
                                  f"{tmp}/run", "-q", "--no-report"], capture_output=True, text=True)
            if res.returncode != 0:
                raise RuntimeError(f"demo run failed: {(res.stdout + res.stderr)[-500:]}")
            return demo_figures(Path(tmp) / "run")
    import numpy as np

    from prism_review.dimensions.base import get_dimension
    from prism_review.pipelines.results import read_results
    from prism_review.pipelines.summary import summarize

    rows = read_results(run)
    dims = [get_dimension(d) for d in sorted({r.dimension for r in rows})]
    out: dict[str, Any] = {}
    llm: dict[str, list[float]] = {}
    for s in summarize(rows, dims, by_venue=False):
        if s.venue != "ALL" or s.mean is None:
            continue
        base = f"demo_{_safe(s.system)}_{s.metric}"
        out.update({f"{base}_mean": s.mean, f"{base}_sd": s.sd, f"{base}_n": s.n})
        if s.system not in ("human", "human-only-bank") and "@" not in s.system:
            llm.setdefault(s.metric, []).append(s.mean)
    for metric, vals in llm.items():
        out[f"demo_llm_{metric}_min"], out[f"demo_llm_{metric}_max"] = min(vals), max(vals)
    sr, share = [], []
    for r in rows:
        a, b = r.metrics.get("sr"), r.metrics.get("stance_novel")
        if r.dimension == "novelty" and r.status == "ok" and a is not None and b is not None:
            sr.append(float(a))
            share.append(float(b))
    if len(sr) >= 3:
        out["demo_sr_reviews"] = len(sr)
        out["demo_sr_equal"] = int(sum(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(sr, share, strict=True)))
        out["demo_sr_r"] = float(np.corrcoef(sr, share)[0, 1])
    return out


def rc_figures() -> dict[str, Any]:
    from prism_review.agreement.held_out import chosen_cv, training_report

    rep = training_report()
    out: dict[str, Any] = {}
    for short, key in (("d1", "actionability->D1_actionability"), ("d2", "grounding_specificity->D2_specificity"),
                       ("d3", "verifiability->D3_justification")):
        cv = rep["cv"][key]
        chosen = chosen_cv(cv)
        out.update({f"rc_{short}": chosen["spearman_0_1_2"], f"rc_{short}_n": cv["n_gold"],
                    f"rc_{short}_wc": cv["word_count_spearman"],
                    f"rc_{short}_minus": cv.get("spearman_0_1_2_minus_word_count"),
                    f"rc_{short}_lvl_pred": cv.get("mean_level_predicted"),
                    f"rc_{short}_lvl_human": cv.get("mean_level_human")})
    rules = rep["rules_and_mcs"]
    out.update({"rc_clc": rules["clc_vs_helpfulness_spearman"], "rc_clc_n": rules["n_helpfulness"],
                "rc_clc_wc": rules["word_count_vs_helpfulness_spearman"],
                "rc_d4": rules["d4_vs_actionability_spearman"], "rc_d4_hi": rules["d4_mean_actionability_4_5"],
                "rc_d4_lo": rules["d4_mean_actionability_1_2"], "rc_d5_acc": rules["d5_professional_accuracy"],
                "rc_d5_always": rules["d5_always_professional_accuracy"],
                "rc_d5_unprof": rules["d5_n_unprofessional"]})
    return out


def _measure(dataset: str, path: Path) -> dict[str, Any]:
    from prism_review.agreement import get_dataset
    from prism_review.judge.base import OfflineJudge

    async def run() -> dict[str, Any]:
        return dict(await get_dataset(dataset)(path, OfflineJudge(), None))

    return asyncio.run(run())


def grounding_figures(data: Path) -> dict[str, Any]:
    """The ``gr`` figures: the grounding CV that ``train_grounding`` prints (a child process, so
    the report package does not import the training code)."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([sys.executable, "-m", "prism_review.training.depth.train_grounding",
                              "--labels", str(data / "labels"), "--out", tmp],
                             capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"grounding CV failed: {(res.stdout + res.stderr)[-500:]}")
    m = json.loads(res.stdout[res.stdout.rindex("\n{") + 1:] if "\n{" in res.stdout else res.stdout)
    pre = "revutil.grounding.single_sentence."
    return {"gr_n": m["n.revutil.grounding.single_sentence"], "gr_spearman": m[pre + "cv5_spearman"],
            "gr_f1": m[pre + "cv5_macro_f1"], "gr_pred": m[pre + "mean_predicted"],
            "gr_gold": m[pre + "mean_gold"], "gr_low": m[pre + "mean_gold"] - m[pre + "mean_predicted"]}


def agreement_figures(prefix: str, data: Path) -> dict[str, Any]:
    """The ``dn``, ``dis``, ``sd`` and ``fv`` figures, from the shared data folder ``data``."""
    dev = data / "labels/disapere/dev.jsonl"
    if prefix == "dn":
        m = _measure("disapere-novelty", dev)
        pre = "disapere.novelty."
        return {"dn_rate_pred": m[pre + "claim_rate.predicted"], "dn_rate_gold": m[pre + "claim_rate.gold"],
                "dn_rate_diff": m[pre + "claim_rate.predicted"] - m[pre + "claim_rate.gold"],
                "dn_kappa": m[pre + "has_claim.kappa"], "dn_claim_f1": m[pre + "claim.f1"],
                "dn_stance_pct": 100 * m[pre + "stance.accuracy"], "dn_stance_n": m["n.disapere.novelty.stance"]}
    if prefix == "dis":
        return {"dis_fact_premise": _measure("disapere", dev)["disapere.fact_as_premise.recall"]}
    if prefix == "sd":
        from prism_review.agreement.held_out import held_out

        async def dev_slice() -> dict[str, Any]:
            return await held_out("substanreview", data / "labels/substanreview/train.jsonl") or {}

        m = asyncio.run(dev_slice())
        return {"sd_n": m["n.reviews"], "sd_pred": m["substanreview.r_premise.predicted"],
                "sd_gold": m["substanreview.r_premise.gold"]}
    if prefix == "fv":
        from prism_review.agreement.revutil_llm_reviews import cross_validate

        m = asyncio.run(cross_validate(data / "demo-sources/revutil-llm-reviews/llm_reviews.jsonl"))
        n, bad = m["n.revutil_llm_reviews.cv.scored"], m["n.revutil_llm_reviews.cv.gold_invalid"]
        return {"fv_acc": m["revutil_llm_reviews.cv.validity.accuracy"],
                "fv_f1": m["revutil_llm_reviews.cv.validity.macro_f1"], "fv_n": n, "fv_valid": n - bad,
                "fv_always": max(bad, n - bad) / n, "fv_papers": m["n.revutil_llm_reviews.cv.papers"]}
    raise KeyError(prefix)


def compute(prefixes: Iterable[str], *, demo_run: Path | None = None, data: Path | None = None) -> dict[str, Any]:
    from prism_review.shared_folder import DATA

    values: dict[str, Any] = {}
    for p in prefixes:
        if p == "demo":
            values.update(demo_figures(demo_run))
        elif p == "rc":
            values.update(rc_figures())
        elif p == "gr":
            values.update(grounding_figures(data or DATA))
        else:
            values.update(agreement_figures(p, data or DATA))
    return values


def build(card: dict[str, Any], values: dict[str, Any], only: Iterable[str] = SOURCES) -> list[tuple[str, str, str]]:
    """Render the templated entries whose fields all come from ``only``; returns
    ``(entry, shipped figure, rebuilt figure)`` for those that differ, and updates ``card``."""
    wanted = set(only)
    diffs = []
    for e in card["entries"]:
        tpl = e.get("figure_template")
        if not tpl or not all(f.split("_", 1)[0] in wanted for f in fields(tpl)):
            continue
        text = tpl.format_map(values)
        if text != e["figure"]:
            diffs.append((f"{e['dimension']}.{e['metric']}", e["figure"], text))
            e["figure"] = text
    return diffs


def needed(card: dict[str, Any], only: Iterable[str] = SOURCES) -> list[str]:
    used = {f.split("_", 1)[0] for e in card["entries"] for f in fields(e.get("figure_template") or "")}
    return [s for s in SOURCES if s in used and s in set(only)]


def main(argv: list[str] | None = None) -> int:
    from prism_review.report.fidelity import card_path

    ap = argparse.ArgumentParser(prog="python -m prism_review.report.card_build", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="recompute and list entries that differ (exit 1)")
    ap.add_argument("--write", action="store_true", help="rewrite the shipped card's figures")
    ap.add_argument("--demo-run", type=Path, help="reuse this offline demo run folder")
    ap.add_argument("--data", type=Path, help="shared data folder (default: the one beside the clone)")
    ap.add_argument("--only", action="append", choices=SOURCES, help="only these sources (repeatable)")
    a = ap.parse_args(argv)
    path = card_path()
    card = json.loads(path.read_text(encoding="utf-8"))
    only = a.only or list(SOURCES)
    values = compute(needed(card, only), demo_run=a.demo_run, data=a.data)
    diffs = build(card, values, only)
    for key, old, new in diffs:
        print(f"{key}:\n  shipped: {old}\n  rebuilt: {new}")
    if a.write and diffs:
        from prism_review.atomic import write_text

        write_text(path, json.dumps(card, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {len(diffs)} figure(s) to {path}")
        return 0
    print(f"{len(diffs)} figure(s) differ" if diffs else "every templated figure matches")
    return 1 if diffs and a.check else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

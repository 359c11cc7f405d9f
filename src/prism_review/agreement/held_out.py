"""Held-out-style figures of the offline judge on the standard files it was trained or tuned on.

``prism agreement --dataset all`` measures every dataset on its standard file. For the offline
judge, four of those files are in-sample (:data:`prism_review.agreement.in_sample.OFFLINE_TRAINED_ON`):
the figures measured on them are fit, not agreement. This module gives, for each, the figure
that was never fitted to the items it is scored on, computed by the code that owns it:

* ``substanreview``: the fixed dev slice (reviews with ``id % 5 == 0``, never trained on),
  measured with the same measure function;
* ``revutil-llm-reviews`` and ``perturbation-verifier``: grouped 5-fold cross-validation by paper
  (the threshold chosen inside each fold), the modules' own ``cross_validate``;
* ``revutil``: the out-of-fold figures the constructiveness training wrote in its
  ``training_report.json`` (5-fold CV by paper; re-run with
  ``python -m prism_review.judge.constructiveness.train``).

Each result says how it was obtained under ``protocol``.
"""

from __future__ import annotations

import json
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

PROTOCOLS: dict[str, str] = {
    "substanreview": "dev slice (id % 5 == 0 reviews, never trained on)",
    "revutil-llm-reviews": "grouped 5-fold CV by paper (thresholds chosen inside each fold)",
    "perturbation-verifier": "grouped 5-fold CV by paper (threshold chosen inside each fold)",
    "revutil": "out-of-fold, 5-fold CV by paper (constructiveness training_report.json)",
}


async def held_out(name: str, path: Path, limit: int | None = None) -> dict[str, Any] | None:
    """The held-out-style figures of the offline judge for dataset ``name`` on ``path`` (its
    standard file), or None when this dataset has none."""
    if name == "substanreview":
        from prism_review.agreement import get_dataset
        from prism_review.judge.base import OfflineJudge
        from prism_review.judge.depth.data import write_substan_dev

        with tempfile.TemporaryDirectory() as tmp:
            dev = Path(tmp) / "substan_dev.jsonl"
            write_substan_dev(path, dev)
            out = dict(await get_dataset(name)(dev, OfflineJudge(), limit))
    elif name == "revutil-llm-reviews":
        from prism_review.agreement.revutil_llm_reviews import cross_validate

        out = await cross_validate(path)
    elif name == "perturbation-verifier":
        from prism_review.agreement.perturbation_verifier import cross_validate as cv

        out = await cv(path)
    elif name == "revutil":
        out = revutil_report()
    else:
        return None
    return {"protocol": PROTOCOLS[name], **{k: v for k, v in out.items() if not isinstance(v, list | dict)}}


def training_report() -> dict[str, Any]:
    """The RevUtil-dev section of the constructiveness training's ``training_report.json``."""
    p = resources.files("prism_review") / "resources" / "models" / "constructiveness" / "training_report.json"
    return dict(json.loads(p.read_text(encoding="utf-8"))["revutil_dev"])


def chosen_cv(cv: dict[str, Any]) -> dict[str, Any]:
    """One aspect's out-of-fold figures at the regularisation the training chose."""
    return dict(cv.get(f"alpha={cv['chosen_alpha']:g}", {}))


def revutil_report() -> dict[str, Any]:
    """The constructiveness training's out-of-fold figures, under the ``revutil.*`` keys the
    ``revutil`` dataset uses (with ``.cv`` after the dataset name)."""
    rep = training_report()
    out: dict[str, Any] = {}
    for aspect, target in (("actionability", "D1_actionability"), ("grounding_specificity", "D2_specificity"),
                           ("verifiability", "D3_justification")):
        cv = rep["cv"].get(f"{aspect}->{target}")
        if not cv:
            continue
        chosen = chosen_cv(cv)
        out[f"revutil.cv.{aspect}.spearman"] = chosen.get("spearman_0_1_2")
        out[f"revutil.cv.{aspect}.word_count_spearman"] = cv.get("word_count_spearman")
        out[f"n.cv.{aspect}"] = cv.get("n_gold")
    rules = rep.get("rules_and_mcs", {})
    out["revutil.cv.helpfulness.spearman_clc"] = rules.get("clc_vs_helpfulness_spearman")
    out["revutil.cv.helpfulness.word_count_spearman"] = rules.get("word_count_vs_helpfulness_spearman")
    out["n.cv.helpfulness"] = rules.get("n_helpfulness")
    return out

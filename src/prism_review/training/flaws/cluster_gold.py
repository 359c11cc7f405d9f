"""Pairwise quality of the offline cross-reviewer clustering against a hand-labelled gold set.

The gold file (``tests/flaws/data/cross_reviewer_flaws.jsonl``, see its README) has one row per
criticism item as the offline splitter cut it: ``paper_id``, ``split`` (``tune`` | ``check``),
``reviewer``, ``item_id``, ``quote``, ``item`` and ``flaws`` (hand-given keys of the specific
problems the item raises). Two items of *different* reviewers of one paper are the same flaw when
their key sets intersect. Every such pair is a decision of the clusterer (same cluster or not);
precision, recall and F1 are micro-averaged over all pairs of a split.

``python -m prism_review.training.flaws.cluster_gold GOLD.jsonl`` prints the figures of both halves
with the default :class:`~prism_review.judge.flaws.clustering.ClusterParams`; ``--legacy`` those
of the clustering before the gold set (:func:`legacy_clusterer`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prism_review.judge.flaws.clustering import ClusterParams, cluster
from prism_review.judge.flaws.topics import topic_for

#: a clusterer: (reviewers, item texts, quotes) -> groups of item indices
Clusterer = Callable[[Sequence[str], Sequence[str], Sequence[str]], list[list[int]]]


@dataclass
class PairScore:
    """Counts of cross-reviewer "same flaw" decisions and their precision/recall/F1."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float | None:
        """Share of predicted same-flaw pairs that are gold pairs (None without predictions)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """Share of gold same-flaw pairs that are predicted (None without gold pairs)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0 when nothing correct is predicted)."""
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp else 0.0


def load_gold(path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """Gold rows grouped by paper, in file order."""
    papers: dict[str, list[dict[str, Any]]] = {}
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            papers.setdefault(row["paper_id"], []).append(row)
    return papers


def default_clusterer(params: ClusterParams | None = None) -> Clusterer:
    """The offline Step 1 clustering with taxonomy topics, as :func:`~prism_review.judge.flaws.offline.consolidate`."""

    def run(
        reviewers: Sequence[str], items: Sequence[str], quotes: Sequence[str]
    ) -> list[list[int]]:
        topics = [topic_for(q, t) for q, t in zip(quotes, items, strict=True)]
        return cluster(reviewers, items, topics, params)

    return run


def legacy_clusterer(threshold: float = 0.35, same_topic_threshold: float = 0.25) -> Clusterer:
    """The clustering before the gold set (commit a2a8fbd): TF-IDF of the raw item texts with
    English stop words, each item joins the cluster holding its most similar earlier item
    (single link) at 0.35, or 0.25 within one topic; one reviewer's items may share a cluster."""

    def run(
        reviewers: Sequence[str], items: Sequence[str], quotes: Sequence[str]
    ) -> list[list[int]]:
        from sklearn.feature_extraction.text import TfidfVectorizer

        topics = [topic_for(q, t) for q, t in zip(quotes, items, strict=True)]
        x = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(list(items))
        sim = (x @ x.T).toarray()
        groups: list[list[int]] = []
        for i in range(len(items)):
            best, best_s = None, 0.0
            for gi, members in enumerate(groups):
                s = max(float(sim[i][j]) for j in members)
                bar = same_topic_threshold if topics[members[0]] == topics[i] else threshold
                if s >= bar and s > best_s:
                    best, best_s = gi, s
            if best is None:
                groups.append([i])
            else:
                groups[best].append(i)
        return groups

    return run


def score_rows(rows: Sequence[dict[str, Any]], groups: list[list[int]], into: PairScore) -> None:
    """Add one paper's cross-reviewer pair decisions to ``into``."""
    label = {i: g for g, members in enumerate(groups) for i in members}
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if rows[i]["reviewer"] == rows[j]["reviewer"]:
                continue
            gold = bool(set(rows[i]["flaws"]) & set(rows[j]["flaws"]))
            pred = label[i] == label[j]
            into.tp += gold and pred
            into.fp += pred and not gold
            into.fn += gold and not pred
            into.tn += not gold and not pred


def score_split(
    papers: dict[str, list[dict[str, Any]]], split: str, clusterer: Clusterer
) -> PairScore:
    """Pairwise scores of ``clusterer`` on the papers of one split."""
    out = PairScore()
    for rows in papers.values():
        if rows[0]["split"] != split:
            continue
        groups = clusterer(
            [r["reviewer"] for r in rows], [r["item"] for r in rows], [r["quote"] for r in rows]
        )
        score_rows(rows, groups, out)
    return out


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def main(argv: Sequence[str] | None = None) -> None:
    """Print the pairwise figures of both halves of a gold file (``--legacy``: the clustering
    before the gold set)."""
    args = list(sys.argv[1:] if argv is None else argv)
    legacy = "--legacy" in args
    paths = [a for a in args if a != "--legacy"]
    papers = load_gold(paths[0] if paths else "tests/flaws/data/cross_reviewer_flaws.jsonl")
    clusterer = legacy_clusterer() if legacy else default_clusterer()
    for split in ("tune", "check"):
        s = score_split(papers, split, clusterer)
        print(
            f"{split}: P={_fmt(s.precision)} R={_fmt(s.recall)} F1={s.f1:.3f} "
            f"(tp={s.tp} fp={s.fp} fn={s.fn} tn={s.tn})"
        )


if __name__ == "__main__":
    main()

"""Injected-error recall on the OpenAIReview perturbation benchmark (flaw identification).

A perturbation counts as detected when some review comment (1) quotes text that approximately
contains the perturbed passage — after normalisation the perturbed text is a substring of the
quote, or the quote covers at least 75% of it (difflib matching blocks, autojunk off) — and
(2) explains it: the explanation matches the generator's ``why_wrong`` by fuzzy token-set ratio
(≥ 70), or by an LLM judge's 1–5 rating at or above a threshold. The dataset card states 4; the
public scorer used 3. The threshold is a setting here (default 4), and every result records the
method and threshold that produced it. One comment may detect several perturbations; each
perturbation counts once. Per row, recall = detected / injected (0 when nothing was injected).
``method="location"`` keeps condition (1) alone: location recall, an upper bound of the recall.
The quote condition is decided by :func:`covers`, which gives difflib's answer in a fraction of
its time.

With the LLM judge, a perturbation that no comment detects but whose quote-matching comments got
an unscored rating (the judge's reply could not be read) is *unscored*, not missed: it is listed
under ``unscored`` and left out of the recall's denominator (recall is None when every injected
perturbation is unscored), so a judge failure never counts as a miss.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

QUOTE_COVERAGE = 0.75
FUZZY_RATIO = 70.0
#: default LLM-judge pass mark (the dataset card's 4 of 5; the public scorer code uses 3)
JUDGE_THRESHOLD = 4

_WS = re.compile(r"\s+")

#: explanation judge: (explanation, why_wrong) -> rating 1..5, or None when unscored
ExplanationJudge = Callable[[str, str], "int | float | None"]


def normalize_for_match(text: str | None) -> str:
    """Lower-case; ``<br>`` and ``|`` → space; drop ``*`` and ``_``; U+2019 → '; fold spaces."""
    t = (text or "").lower()
    t = t.replace("<br>", " ").replace("|", " ")
    t = t.replace("*", "").replace("_", "")
    t = t.replace("\u2019", "'")
    return _WS.sub(" ", t).strip()


def quote_coverage(quote: str, window: str) -> float:
    """Share of ``quote`` covered by difflib matching blocks against ``window`` (as given)."""
    if not quote or not window:
        return 0.0
    sm = SequenceMatcher(None, quote, window, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()) / len(quote)


def longest_match(a: str, b: str, alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int, int]:
    """difflib's ``SequenceMatcher(None, a, b, autojunk=False).find_longest_match(alo, ahi, blo,
    bhi)``: the longest common block of ``a[alo:ahi]`` and ``b[blo:bhi]``, the earliest in ``a``
    and then in ``b`` on ties; ``(alo, blo, 0)`` when there is none.

    Computed with substring searches: walking the start ``i`` through ``a``, the best length only
    grows while ``a[i:i + best + 1]`` occurs in ``b``, so at most ``len(a) + best`` searches run
    (each in C), against difflib's Python loop over every position of every character. With no
    junk, difflib's block extensions change nothing, so the results are equal (tested).
    """
    sa, sb = a[alo:ahi], b[blo:bhi]
    best, at = 0, 0
    for i in range(len(sa)):
        if len(sa) - i <= best:
            break
        while i + best < len(sa) and sa[i : i + best + 1] in sb:
            best += 1
            at = i
    if not best:
        return alo, blo, 0
    return alo + at, blo + sb.find(sa[at : at + best]), best


def covers(quote: str, window: str, threshold: float) -> bool:
    """``quote_coverage(quote, window) >= threshold``, decided without most of difflib's work.

    difflib's matching blocks come from a recursion over ranges: the longest common block of a
    range (:func:`longest_match`), then the same on the ranges left and right of it. The blocks
    form a common subsequence, so a range adds at most its longest common subsequence (LCS,
    bit-parallel in rapidfuzz). Ranges are expanded until the blocks found reach the threshold
    (match) or the blocks found plus the LCS bounds of the ranges left fall below it (no match).
    Each range's blocks depend on the range alone, so stopping early and the order of expansion
    do not change the answer. The full difflib comparison, quadratic in Python, took minutes on
    the dev set's long quotes; this takes seconds.
    """
    from rapidfuzz.distance import LCSseq

    n = len(quote)
    if not n or not window:
        return False

    def bound(alo: int, ahi: int, blo: int, bhi: int) -> int:
        return int(LCSseq.similarity(quote[alo:ahi], window[blo:bhi]))

    found = 0
    pending = [(bound(0, n, 0, len(window)), 0, n, 0, len(window))]
    upper = pending[0][0]
    while pending:
        if found / n >= threshold:
            return True
        if upper / n < threshold:
            return False
        b, alo, ahi, blo, bhi = pending.pop()
        upper -= b
        i, j, k = longest_match(quote, window, alo, ahi, blo, bhi)
        if not k:
            continue
        found += k
        upper += k
        for sub in ((alo, i, blo, j), (i + k, ahi, j + k, bhi)):
            if sub[0] < sub[1] and sub[2] < sub[3] and (sb := bound(*sub)):
                pending.append((sb, *sub))
                upper += sb
    return found / n >= threshold


def substring_match(
    quote: str | None, perturbed: str | None, threshold: float = QUOTE_COVERAGE
) -> bool:
    """True when the comment's quote approximately contains the perturbed text."""
    return normalized_match(normalize_for_match(quote), normalize_for_match(perturbed), threshold)


def normalized_match(q: str, p: str, threshold: float = QUOTE_COVERAGE) -> bool:
    """:func:`substring_match` on texts already passed through :func:`normalize_for_match`."""
    if not q or not p:
        return False
    return p in q or covers(p, q, threshold)


def explanation_match_fuzzy(
    explanation: str | None, why_wrong: str | None, threshold: float = FUZZY_RATIO
) -> bool:
    """rapidfuzz ``token_set_ratio`` (case-sensitive, no processor) ≥ ``threshold``."""
    from rapidfuzz import fuzz

    return float(fuzz.token_set_ratio(explanation or "", why_wrong or "")) >= threshold


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def score_review(
    perturbations: Sequence[Any],
    comments: Sequence[Mapping[str, Any]],
    *,
    method: str = "fuzzy",
    judge: ExplanationJudge | None = None,
    judge_threshold: float = JUDGE_THRESHOLD,
    fuzzy_threshold: float = FUZZY_RATIO,
) -> dict[str, Any]:
    """Score one review (a list of ``{quote, explanation}`` comments) against one row.

    ``method`` is ``fuzzy``, ``llm`` (then ``judge`` rates the explanation) or ``location``
    (the quote condition alone, no explanation check: an upper bound of the recall). Returns
    ``{n_injected, n_detected, n_unscored, recall, n_total_comments, detected, missed, unscored,
    method, threshold}``; see the module docstring for unscored perturbations.
    """
    if method not in ("fuzzy", "llm", "location"):
        raise ValueError(f"unknown explanation-match method {method!r}")
    if method == "llm" and judge is None:
        raise ValueError("method 'llm' needs a judge")
    detected: list[Any] = []
    missed: list[Any] = []
    unscored: list[Any] = []
    for p in perturbations:
        pid, perturbed, why = _get(p, "perturbation_id"), _get(p, "perturbed"), _get(p, "why_wrong")
        hit = pending = False
        for c in comments:
            if not substring_match(c.get("quote") or "", perturbed):
                continue
            expl = c.get("explanation") or ""
            if method == "location":  # the quote condition alone (an upper bound of recall)
                ok = True
            elif method == "fuzzy":
                ok = explanation_match_fuzzy(expl, why, fuzzy_threshold)
            else:
                assert judge is not None
                rating = judge(expl, why or "")
                pending = pending or rating is None
                ok = rating is not None and rating >= judge_threshold
            if ok:
                hit = True
                break
        (detected if hit else unscored if pending else missed).append(pid)
    n = len(perturbations)
    return {
        "n_injected": n,
        "n_detected": len(detected),
        "n_unscored": len(unscored),
        "recall": row_recall(n, len(detected), len(unscored)),
        "n_total_comments": len(comments),
        "detected": detected,
        "missed": missed,
        "unscored": unscored,
        "method": method,
        "threshold": {"fuzzy": fuzzy_threshold, "llm": judge_threshold}.get(method),
    }


def row_recall(n_injected: int, n_detected: int, n_unscored: int = 0) -> float | None:
    """detected / judged injected perturbations: 0.0 when nothing was injected (the reference),
    None when every injected perturbation is unscored."""
    if n_injected == 0:
        return 0.0
    judged = n_injected - n_unscored
    return n_detected / judged if judged else None


def recall_by_category(
    rows: Iterable[Mapping[str, Any]],
) -> dict[str, dict[str, float | int | None]]:
    """Pool scored rows (``{error_category, n_injected, n_detected, [n_unscored,] recall}``)
    per category.

    ``recall`` is pooled (Σ detected / Σ judged injected, unscored perturbations left out);
    ``mean_row_recall`` averages the rows that have a recall (None when none has).
    """
    acc: dict[str, dict[str, Any]] = {}
    for r in rows:
        a = acc.setdefault(str(r.get("error_category")), {"n": 0, "inj": 0, "det": 0, "uns": 0, "recalls": []})
        a["n"] += 1
        a["inj"] += int(r["n_injected"])
        a["det"] += int(r["n_detected"])
        a["uns"] += int(r.get("n_unscored") or 0)
        if r.get("recall") is not None:
            a["recalls"].append(float(r["recall"]))
    return {
        cat: {
            "n_rows": a["n"],
            "n_injected": a["inj"],
            "n_detected": a["det"],
            "n_unscored": a["uns"],
            "recall": row_recall(a["inj"], a["det"], a["uns"]),
            "mean_row_recall": sum(a["recalls"]) / len(a["recalls"]) if a["recalls"] else None,
        }
        for cat, a in sorted(acc.items())
    }


def locate_comment_in_document(
    quote: str, paragraphs: Sequence[str], threshold: float = 0.3
) -> int | None:
    """Index of the paragraph that best contains ``quote`` (coverage ≥ ``threshold``), or None.

    Text is normalised first; paragraphs much longer than the quote are scanned in overlapping
    windows of twice the quote's length.
    """
    q = normalize_for_match(quote)
    if not q:
        return None
    best, best_i = 0.0, None
    for i, para in enumerate(paragraphs):
        p = normalize_for_match(para)
        if q in p:
            cov = 1.0
        elif len(p) <= 2 * len(q):
            cov = quote_coverage(q, p)
        else:
            win, step = 2 * len(q), max(1, len(q) // 2)
            cov = max(
                quote_coverage(q, p[s : s + win]) for s in range(0, len(p) - len(q) + 1, step)
            )
        if cov > best:
            best, best_i = cov, i
    return best_i if best >= threshold else None

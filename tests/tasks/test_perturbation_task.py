"""Perturbation recall on real dev rows with hand-written comments (fuzzy and LLM matching)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.data.perturbation import PerturbationRow, load_perturbations
from prism_review.data.skips import SkipLog
from prism_review.tasks.perturbation import load_comments, score_perturbations
from prism_review.testing.shared import SHARED

DEV = Path(f"{SHARED}/data/perturbation/dev.jsonl")
pytestmark = pytest.mark.skipif(not DEV.is_file(), reason="shared perturbation dev file not present")


@pytest.fixture(scope="module")
def rows() -> list[PerturbationRow]:
    return load_perturbations(DEV, rebuild_review_input=False)[:3]


def comments_for(rows: list[PerturbationRow]) -> dict[str, list[dict[str, str]]]:
    surface, claim = rows[0], rows[1]
    sign = surface.perturbations[0]  # exp(+t/tau): the sign flip
    assert sign.perturbation_id == "P000_S0020"
    outward = claim.perturbations[2]  # gas drifts "outward toward the planet"
    return {
        surface.id: [
            {   # quotes the flipped equation (whitespace differs) and explains it: detected
                "title": "Sign of the exponent",
                "quote": " ".join(sign.perturbed.split()),
                "explanation": "Changing the sign to positive results in an exponential increase in accretion rate",
                "comment_type": "technical",
            },
            {   # quotes the dropped-z edit inside a longer sentence, but explains something else
                "title": "Notation",
                "quote": "\\noindent where $C_s(r)$ is the speed of sound at a given planet-centered radius",
                "explanation": "The notation is confusing.",
                "comment_type": "technical",
            },
            {   # right explanation of another error, but quotes unperturbed text: not detected
                "title": "Inverse frequency",
                "quote": "This study explores the formation and transport of COMs within Jupiter's circumplanetary disk",
                "explanation": surface.perturbations[2].why_wrong,
                "comment_type": "technical",
            },
        ],
        claim.id: [
            {   # quotes 80% of the edited sentence (coverage ≥ 0.75): detected
                "title": "Direction of gas drift",
                "quote": outward.perturbed[: int(len(outward.perturbed) * 0.8)],
                "explanation": "It is logically inconsistent to state that gas drifts outward toward the planet.",
                "comment_type": "logical",
            }
        ],
    }


async def test_fuzzy_recall_on_real_rows(rows: list[PerturbationRow]) -> None:
    comments = comments_for(rows)
    summary, per_row = await score_perturbations(rows, comments, method="fuzzy")
    assert summary["method"] == "fuzzy" and summary["threshold"] == 70
    assert summary["figure"] == "fuzzy_recall"
    assert summary["n_rows"] == 2 and summary["n_rows_missing_comments"] == 1
    by_id = {r["id"]: r for r in per_row}
    s = by_id[rows[0].id]
    assert s["detected"] == ["P000_S0020"]
    assert s["n_scored"] == 11 and s["fuzzy_recall"] == pytest.approx(1 / 11)
    c = by_id[rows[1].id]
    assert c["detected"] == [rows[1].perturbations[2].perturbation_id]
    assert c["fuzzy_recall"] == pytest.approx(1 / 10)
    assert summary["by_category"]["Surface"]["fuzzy_recall"] == pytest.approx(1 / 11)
    assert summary["by_category"]["Claim"]["fuzzy_recall"] == pytest.approx(1 / 10)
    assert summary["overall"]["fuzzy_recall"] == pytest.approx(2 / 21)
    assert summary["by_subtype"]["operator_or_sign"]["n_detected"] == 1


async def test_missing_rows_as_zero(rows: list[PerturbationRow]) -> None:
    summary, per_row = await score_perturbations(rows, comments_for(rows), method="fuzzy", missing="zero")
    assert summary["n_rows"] == 3
    assert per_row[2]["fuzzy_recall"] == 0.0 and per_row[2]["has_comments"] is False
    assert summary["overall"]["fuzzy_recall"] == pytest.approx(2 / (11 + 10 + 12))


async def test_llm_explanation_match_threshold(rows: list[PerturbationRow], llm_server, loopback_judge) -> None:
    def responder(body: dict) -> dict:
        user = body["messages"][-1]["content"]
        reference, reviewer = user.split("Reviewer's explanation:")
        if "notation is confusing" in reviewer:
            return {"score": 3, "reason": "vague"}
        same = any(k in reference and k in reviewer for k in ("sign to positive", "outward toward"))
        return {"score": 5 if same else 1, "reason": "compared"}

    llm_server.set_responder(responder)
    judge = loopback_judge()
    comments = comments_for(rows)
    s4, per4 = await score_perturbations(rows, comments, method="llm", judge=judge)
    # only quote-matched pairs reach the judge: sign flip, C_s(r) (notation), outward drift, and
    # the short edit "$\mu_\text{total}$", which the 0.75 character-coverage rule finds inside
    # the quoted equation (a known looseness of the upstream rule for very short spans)
    assert len(llm_server.requests) == 4
    assert s4["method"] == "llm" and s4["threshold"] == 4 and s4["n_judge_calls"] == 4
    assert per4[0]["detected"] == ["P000_S0020"]
    s3, per3 = await score_perturbations(rows, comments, method="llm", judge=judge, judge_threshold=3)
    assert sorted(per3[0]["detected"]) == ["P000_S0010", "P000_S0020"]
    assert s3["overall"]["n_detected"] == 3


async def test_unscored_rating_never_passes(rows: list[PerturbationRow], llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: "no json here at all")
    summary, per_row = await score_perturbations(rows, comments_for(rows), method="llm", judge=loopback_judge())
    assert summary["n_judge_unscored"] == 4
    o = summary["overall"]
    # the perturbations whose quotes matched could not be judged: unscored, not missed
    assert o["n_detected"] == 0 and o["n_unscored"] == sum(len(r["unscored"]) for r in per_row) > 0
    assert o["recall"] == 0.0 and o["n_scored"] - o["n_unscored"] > 0  # the unmatched ones are missed
    assert all(set(r["unscored"]).isdisjoint(r["missed"]) for r in per_row)
    assert {"P000_S0010", "P000_S0020"} <= set(per_row[0]["unscored"])  # detected at threshold 3 when judged


def test_load_comments_keys_and_merge(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    lines = [
        {"id": "x__surface", "comments": [{"quote": "a", "explanation": "b"}]},
        {"arxiv_id": "x", "error_type": "surface", "comments": [{"quote": "c", "explanation": "d"}]},
        {"arxiv_id": "y", "error_type": "experimental", "comments": []},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    by_id, merged = load_comments(path)
    assert merged == 1 and len(by_id["x__surface"]) == 2 and by_id["y__experimental"] == []
    # a line that is not JSON is skipped and recorded with its line number, not silently dropped
    path.write_text(json.dumps(lines[0]) + "\n{broken\n" + json.dumps(lines[2]) + "\n")
    skips = SkipLog()
    by_id, _ = load_comments(path, skips)
    assert sorted(by_id) == ["x__surface", "y__experimental"]
    assert [(s.record, s.message.split(" (")[0]) for s in skips.skips] == [("line 2", "invalid JSON")]


def test_prefilter_gives_the_reference_result(rows: list[PerturbationRow]) -> None:
    """score_row (with the character-count pre-filter) equals the metrics module's score_review."""
    from prism_review.metrics.perturbation import score_review
    from prism_review.tasks.perturbation import score_row

    hand = comments_for(rows)
    for row in rows[:2]:
        # the verifier's own quotes and reasons as comments, plus the hand-written ones
        oracle = [{"quote": p.verifier_quote or "", "explanation": p.verifier_reason or ""} for p in row.perturbations]
        comments = hand.get(row.id, []) + oracle
        for thr in (70, 40):
            ref = score_review(row.scored_perturbations, comments, fuzzy_threshold=thr)
            got = score_row(row.scored_perturbations, comments, fuzzy_threshold=thr)
            assert got == ref


@pytest.mark.parametrize("bad", [0, 9])
async def test_out_of_scale_rating_is_unscored(rows: list[PerturbationRow], llm_server, loopback_judge, bad: int) -> None:
    # the step's check re-asks once; a judge that still answers outside 1-5 gave no rating:
    # unscored (None), neither a miss (0) nor a detection (9)
    llm_server.set_responder(lambda body: {"score": bad, "reason": "off the scale"})
    summary, per_row = await score_perturbations(rows, comments_for(rows), method="llm", judge=loopback_judge())
    assert len(llm_server.requests) == 8  # 4 pairs, each re-asked once
    assert summary["n_judge_unscored"] == 4
    o = summary["overall"]
    assert o["n_detected"] == 0 and o["n_unscored"] > 0
    assert {"P000_S0010", "P000_S0020"} <= set(per_row[0]["unscored"])

"""``--compat`` reads a verdict's label as the original code did (issue 30, item 1; risk N5).

Through the loopback server and the real SDK: the clean reply schema narrows label, stance,
calibration and score to the values the prompt asks for; the compat schema leaves them free, so a
label the original would have misread can arrive, and it is read with the original's
first-substring rule ("NOT SUPPORTED" contains SUPPORTED, which is checked first).
"""

from __future__ import annotations

from typing import Any

import pytest

from prism_review.judge.novelty.normalise import ASKED_LABELS
from prism_review.judge.novelty.verdict import CandidateText, VerdictInput, VerdictStep

REPLY = {"review_sentence_id": "C1", "related_paper_id": "P1", "classification": {"claim": 1, "proof": 0},
         "stance_alignment": "contradicted", "calibration": "N/A", "score": -2,
         "label": "NOT SUPPORTED", "explanation": "The related work does the same thing."}


def _input(compat: bool) -> VerdictInput:
    return VerdictInput(claim_id="C1", claim="The method is the same as prior work on sparse attention.",
                        claim_stance="not_novel", paper_context="We propose a sparse attention model.",
                        candidate=CandidateText(cand_id="P1", text="Longformer\nA sparse attention model."),
                        compat=compat)


def _props(schema: Any, name: str) -> list[dict[str, Any]]:
    """Every property called ``name`` anywhere in a JSON schema."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict) and name in props:
            found.append(props[name])
        for v in schema.values():
            found += _props(v, name)
    elif isinstance(schema, list):
        for v in schema:
            found += _props(v, name)
    return found


@pytest.mark.parametrize(("compat", "label", "score"), [(False, "UNSUPPORTED", -2), (True, "SUPPORTED", 2)])
async def test_compat_label_parsing_is_the_originals(llm_server, loopback_judge, compat, label, score) -> None:
    llm_server.canned("novelty.verdict", REPLY)
    judge = loopback_judge()
    res = await judge.run(VerdictStep(), _input(compat))
    assert res.ok, res.error
    assert (res.output.label, res.output.score) == (label, score)
    schema = llm_server.requests[-1].body["response_format"]["json_schema"]["schema"]
    (prop,) = _props(schema, "label")
    if compat:
        assert "enum" not in prop and prop["type"] == "string"
        assert all("enum" not in p for f in ("stance_alignment", "calibration", "score") for p in _props(schema, f))
    else:
        assert prop["enum"] == list(ASKED_LABELS.values())
        (stance,) = _props(schema, "stance_alignment")
        assert stance["enum"] == list(ASKED_LABELS)

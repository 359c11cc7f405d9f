"""The lenient parser on the raw replies of the reference vectors (depth_llm_output_handling).

The reference parser (``PRISMLLMClient._parse_json``) accepts a dict from plain or fenced JSON and
from leading prose, rejects lists and junk, and — the one compat case — fails on an object with
prose on both sides, which the spec says a parser should find. Here: the dict is found in every
case the reference found one, plus the compat case (the recommended behaviour); the junk, empty
and list replies still raise, so the dimension's fallback (or ``unscored``) applies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.llm.parse import ReplyParseError, parse_json_object
from prism_review.testing.shared import SHARED

VECTORS = Path(f"{SHARED}/spec/vectors/depth_llm_output_handling.json")
CASES = json.loads(VECTORS.read_text())["cases"] if VECTORS.exists() else []
NO_OBJECT = {
    "segment_malformed_falls_back_to_sentence_split", "segment_malformed_split_keeps_decimals",
    "segment_empty_output_fallback", "segment_top_level_list_not_accepted",
    "classify_malformed_all_claim_other", "classify_missing_argument_key_in_input",
    "grounding_malformed_all_zero",
}


@pytest.mark.skipif(not CASES, reason="reference vectors not available")
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_parser_on_reference_replies(case):
    raw = case["input"]["raw_llm_output"]
    if case["name"] in NO_OBJECT:
        with pytest.raises(ReplyParseError):
            parse_json_object(raw)
        return
    got = parse_json_object(raw)
    start = raw.index("{")
    end = raw.rindex("}") + 1
    assert got == json.loads(raw[start:end])
    if case["compat"]:
        # the reference parser missed this object; the recommended parser finds it
        assert case["name"] == "segment_json_with_prefix_and_suffix_text"
        assert got == {"arguments": [{"argument": "X."}]}

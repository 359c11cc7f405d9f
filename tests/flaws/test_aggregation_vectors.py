"""The reference vectors of ``flaw_aggregation.json`` (no compat cases)."""

from __future__ import annotations

from typing import Any

import pytest

from prism_review.metrics.flaws import aggregate_records, mean_std_n
from prism_review.testing.vectors import close
from prism_review.testing.vectors import vector_cases as cases


@pytest.mark.parametrize("case", cases("flaw_aggregation.json"))
def test_aggregation_vector(case: dict[str, Any]) -> None:
    inp = case["input"]
    got = aggregate_records(
        inp["jsonl_records"],
        conference=inp["conference"],
        llm_type=inp["llm_type"],
        paper_ids=inp.get("paper_ids"),
    )
    close(got, case["expected"])


def test_mean_std_n_by_hand() -> None:
    # values 1, 2, None, 4: mean 7/3, population variance ((4/3)^2+(1/3)^2+(5/3)^2)/3 = 14/9
    m, s, n = mean_std_n([1, 2, None, 4])
    assert n == 3 and m == round(7 / 3, 4) and s == round((14 / 9) ** 0.5, 4)
    assert mean_std_n([None, None]) == (None, None, 0)

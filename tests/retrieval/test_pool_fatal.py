"""A rejected Semantic Scholar key stops the run; other failed searches are recorded per query."""

import pytest

from prism_review.pipelines.outcomes import is_fatal
from prism_review.retrieval.pool import build_pool
from prism_review.retrieval.s2 import S2Error

SIDE = {"core_task": "graph neural network pruning", "contributions": [{"name": "lottery ticket pruning"}],
        "key_terms": ["pruning", "graphs", "sparsity", "lottery", "gnn"], "must_have_entities": []}


class _Failing:
    name = "failing"

    def __init__(self, status):
        self.status = status

    async def search(self, query, limit):
        raise S2Error(f"HTTP {self.status}", self.status)


async def test_rejected_key_raises_and_is_fatal():
    with pytest.raises(S2Error) as err:
        await build_pool(SIDE, _Failing(403), 2024)
    assert is_fatal(err.value)


async def test_server_error_is_recorded_per_query():
    pool = await build_pool(SIDE, _Failing(503), 2024)
    assert pool["queries"] and all(q["status"] == "error" for q in pool["queries"])
    assert not is_fatal(S2Error("HTTP 503", 503))

"""The loopback S2 server with this folder's recorded responses."""

from pathlib import Path

from prism_review.retrieval.loopback import S2Server
from prism_review.retrieval.loopback import recorded_script as _recorded

RECORDED = Path(__file__).parent / "data" / "s2_search_responses.json"

__all__ = ["RECORDED", "S2Server", "recorded_script"]


def recorded_script():
    return _recorded(RECORDED)

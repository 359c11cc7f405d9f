"""The HTML report's paper browser."""

from prism_review.dimensions.base import ResultRow, get_dimension
from prism_review.pipelines.summary import summarize
from prism_review.report.html import write_html


def test_browse_lists_a_papers_rows_in_system_order_not_alphabetically(tmp_path):
    # registry order puts human first; alphabetically "deepreview" would come before it
    rows = [
        ResultRow(dimension="depth", venue="ICLR2024", paper_id="p1", system=s, reviewer_id=rid,
                  unit_key=f"p1/{rid}", metrics={"doa": 0.5})
        for s, rid in (("deepreview", "deepreview"), ("human", "Human_1"), ("sea", "sea"))
    ]
    dims = [get_dimension("depth")]
    page = write_html(tmp_path, rows, summarize(rows, dims), dims, {}).read_text()
    at = [page.index(f"depth · {s} · ") for s in ("human", "sea", "deepreview")]
    assert at == sorted(at)

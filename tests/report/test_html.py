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


def test_figures_are_written_next_to_the_report_with_clipped_bars(tmp_path):
    import pytest

    from prism_review.report.figures import clipped_errors

    assert clipped_errors(0.9, 0.3, 0.0, 1.0) == pytest.approx((0.3, 0.1))  # cut at 1
    assert clipped_errors(0.1, 0.3, 0.0, 1.0) == pytest.approx((0.1, 0.3))  # cut at 0
    rows = [
        ResultRow(dimension="depth", venue="ICLR2024", paper_id=p, system="human", reviewer_id="Human_1",
                  unit_key=f"{p}/h", metrics={"doa": v})
        for p, v in (("p1", 0.95), ("p2", 0.05))
    ]  # fmt: skip
    dims = [get_dimension("depth")]
    write_html(tmp_path, rows, summarize(rows, dims), dims, {})
    for stem in ("fig_headline", "fig_distributions"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000
        assert (tmp_path / f"{stem}.svg").read_text().lstrip().startswith("<?xml")


def test_header_links_rows_not_scored_and_skipped_inputs(tmp_path):
    rows = [
        ResultRow(dimension="depth", venue="ICLR2024", paper_id="p1", system="sea", reviewer_id="sea",
                  unit_key="p1/sea", metrics={"doa": 0.5}),
        ResultRow(dimension="depth", venue="ICLR2024", paper_id="p2", system="sea", reviewer_id="sea",
                  unit_key="p2/sea", metrics={"doa": None}, status="unscored", error="reply unparsable"),
    ]  # fmt: skip
    dims = [get_dimension("depth")]
    manifest = {"inputs_skipped": ["ICLR2024/sea/p3.txt: empty"]}
    page = write_html(tmp_path, rows, summarize(rows, dims), dims, manifest).read_text()
    assert '<a href="#not-scored">1 rows not scored</a>' in page
    assert 'id="not-scored"' in page and "reply unparsable" in page
    assert "1 inputs skipped" in page and '<a href="errors.jsonl">errors.jsonl</a>' in page


def test_figures_are_a_grid_at_report_width_with_y_axis_labels(tmp_path):
    """Eight headline panels in one strip were 2805 px wide, shown at 1200: text unreadable."""
    import struct

    from prism_review.dimensions.base import dimension_names

    metrics = {"depth": {"doa": 0.3}, "novelty": {"ns": 0.5, "sr": 0.4, "ssr": 0.3},
               "flaws": {"critical_recall": 0.5, "minor_recall": 0.4, "ncps": 0.9},
               "constructiveness": {"mcs": 0.3}}  # fmt: skip
    rows = [
        ResultRow(dimension=d, venue="ICLR2024", paper_id=p, system=s, reviewer_id=s,
                  unit_key=f"{d}/{p}/{s}", metrics=m)
        for d, m in metrics.items() for p in ("p1", "p2") for s in ("human", "sea")
    ]  # fmt: skip
    dims = [get_dimension(d) for d in dimension_names() if d in metrics]
    write_html(tmp_path, rows, summarize(rows, dims), dims, {})
    for stem in ("fig_headline", "fig_distributions"):
        width, height = struct.unpack(">II", (tmp_path / f"{stem}.png").read_bytes()[16:24])
        assert 700 < width <= 1168 and height > width / 2, (stem, width, height)  # shown 1:1
        svg = (tmp_path / f"{stem}.svg").read_text()
        assert ("mean over papers" if stem == "fig_headline" else "per paper") in svg
        assert "DoA, " in svg and "MCS, " in svg  # a y-axis label per panel


def test_drill_down_shows_the_review_text_folded_beside_its_extraction(tmp_path):
    from typer.testing import CliRunner

    from prism_review.cli import app
    from prism_review.data.layout import EvalLayout, demo_root

    run = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", "--dimension", "constructiveness", "--limit", "2",
                                   "--out", str(run), "--quiet"])
    assert res.exit_code == 0, res.output
    page = (run / "report.html").read_text()
    review = EvalLayout(demo_root()).load_reviews("ICLR2024", "0A5o6dCKeK", "human")[0]
    import json

    islands = [json.loads(chunk.split(">", 1)[1].split("</script>", 1)[0])
               for chunk in page.split('<script type="application/json" id="t')[1:]]
    assert review.text in islands
    assert '<details class="review" data-t="t1"><summary>Review text (' in page  # folded
    assert page.count('<div class="side">') == page.count('<details class="row"')


def test_review_texts_say_why_they_are_absent(tmp_path):
    from prism_review.report.reviews import review_texts

    texts, note = review_texts({"data": str(tmp_path / "gone")}, [("ICLR2024", "p1")])
    assert texts == {} and "is not here" in note
    texts, note = review_texts({}, [("ICLR2024", "p1")])  # the note was "": absent, unexplained
    assert texts == {} and "names no data" in note


def test_comparison_with_few_pairs_still_shows_the_means(tmp_path):
    rows = [
        ResultRow(dimension="depth", venue="ICLR2024", paper_id=p, system=s, reviewer_id=s,
                  unit_key=f"{p}/{s}", metrics={"doa": v})
        for p in ("p1", "p2") for s, v in (("human", 0.25), ("sea", 0.75))
    ]  # fmt: skip
    dims = [get_dimension("depth")]
    page = write_html(tmp_path, rows, summarize(rows, dims), dims, {}).read_text()
    assert ("<td>sea</td><td>depth</td><td>DoA</td><td>2</td><td>0.2500</td><td>0.7500</td>"
            "<td>0.5000</td><td></td><td>not tested (&lt; 10 pairs)</td>") in page


def test_figure_panels_carry_the_judge_cards_markers_like_the_table_cells(tmp_path):
    """A not-informative column's Table-1 cells carry ‡; its bars and boxes in the figures (saved to
    go into a paper as they are) carried nothing, so they read as a finding the card calls noise."""
    import json

    card = tmp_path / "card.json"
    card.write_text(json.dumps({"judge": "openai/x", "entries": [
        {"dimension": "depth", "metric": "doa", "label": "DoA", "class": "not_informative",
         "figure": "kappa 0.01 vs 0 (n 40)", "command": "prism agreement ...",
         "status": "measured", "owner": "prism agreement"}]}))
    rows = [
        ResultRow(dimension="depth", venue="ICLR2024", paper_id=p, system=s, reviewer_id=s,
                  unit_key=f"{p}/{s}", metrics={"doa": v})
        for p, v in (("p1", 0.9), ("p2", 0.1)) for s in ("human", "sea")
    ]  # fmt: skip
    dims = [get_dimension("depth")]
    manifest = {"judge": {"judge": "openai"}, "judge_spec": "openai/x", "card_file": str(card)}
    page = write_html(tmp_path, rows, summarize(rows, dims), dims, manifest).read_text()
    assert "‡" in page  # the table cells
    for stem in ("fig_headline", "fig_distributions"):
        svg = (tmp_path / f"{stem}.svg").read_text(encoding="utf-8")
        assert "DoA‡" in svg and "‡ not informative" in svg, stem
    write_html(tmp_path, rows, summarize(rows, dims), dims, {})  # no card: no marker
    assert "‡" not in (tmp_path / "fig_headline.svg").read_text(encoding="utf-8")

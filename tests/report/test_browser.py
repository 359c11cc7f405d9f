"""The HTML report in a real headless Chromium (Debian's ``chromium``; skipped when absent):
no JavaScript errors, a drill-down opens with the review's full extraction, search filters by
paper id, title, system and reviewer only."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from prism_review.dimensions.base import ResultRow, get_dimension
from prism_review.pipelines.summary import summarize
from prism_review.report.html import write_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

# runs in the page: records errors from the start, then drives it and writes what it saw
_PROBE_HEAD = "<script>window.__errors=[];window.onerror=function(m){window.__errors.push(String(m));};</script>"
_PROBE_TAIL = """<script>
setTimeout(function(){
  var out={errors:window.__errors};
  var row=document.querySelector('#browse details.row');
  row.parentElement.open=true; row.open=true;
  setTimeout(function(){
    out.opened=row.querySelector('pre.extracted').textContent;
    function visible(){return Array.from(document.querySelectorAll('#browse details.paper'))
      .filter(function(p){return p.style.display!=='none';}).map(function(p){return p.dataset.key;});}
    function rows(){return Array.from(document.querySelectorAll('#browse details.row'))
      .filter(function(r){return r.style.display!=='none'&&r.closest('details.paper').style.display!=='none';})
      .map(function(r){return r.dataset.key;});}
    f('p2'); out.by_id=visible();
    f('sparse gating'); out.by_title=visible();
    f('sea'); out.by_system=rows();
    f('human_2'); out.by_reviewer=rows();
    f('needle-in-extraction'); out.by_other_json=visible();
    f(''); out.cleared=visible().length;
    var pre=document.createElement('pre'); pre.id='probe'; pre.textContent=JSON.stringify(out);
    document.body.appendChild(pre);
  }, 50);
}, 50);
</script>"""


def _rows() -> list[ResultRow]:
    long_text = "word " * 3000  # far above the old 6,000-character cut
    out = []
    for pid, title in (("p1", "Sparse gating for MoE"), ("p2", "Dense retrieval")):
        for system, rid in (("human", "Human_1"), ("human", "Human_2"), ("sea", "sea")):
            out.append(ResultRow(
                dimension="depth", venue="ICLR2024", paper_id=pid, system=system, reviewer_id=rid,
                unit_key=f"{pid}/{rid}", metrics={"doa": 0.5}, meta={"title": title},
                extracted={"units": [long_text], "end": "END-OF-EXTRACTION",
                           "note": "needle-in-extraction </script><b>"},
            ))  # fmt: skip
    return out


def test_report_in_headless_chromium(tmp_path: Path) -> None:
    rows = _rows()
    dims = [get_dimension("depth")]
    page = write_html(tmp_path, rows, summarize(rows, dims), dims, {}).read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.replace("<head>", "<head>" + _PROBE_HEAD, 1).replace("</body>", _PROBE_TAIL + "</body>"),
        encoding="utf-8",
    )
    res = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    dom = res.stdout
    start = dom.index('<pre id="probe">') + len('<pre id="probe">')
    import html

    seen = json.loads(html.unescape(dom[start : dom.index("</pre>", start)]))
    assert seen["errors"] == []
    assert "END-OF-EXTRACTION" in seen["opened"] and seen["opened"].count("word") == 3000
    assert "</script><b>" in seen["opened"]  # the review's own markup is data, shown as text
    assert seen["by_id"] == ["iclr2024/p2 dense retrieval"]
    assert seen["by_title"] == ["iclr2024/p1 sparse gating for moe"]
    assert seen["by_system"] == ["sea sea", "sea sea"]
    assert seen["by_reviewer"] == ["human human_2", "human human_2"]
    assert seen["by_other_json"] == []  # text inside the extractions is not searched
    assert seen["cleared"] == 2


_PROBE_REVIEW = """<script>
window.addEventListener('load', function(){ setTimeout(function(){
  var out={errors:window.__errors, imgs:[]};
  document.querySelectorAll('img').forEach(function(i){
    out.imgs.push([i.naturalWidth, i.getBoundingClientRect().width]);});
  var row=document.querySelector('#browse details.row');
  row.parentElement.open=true; row.open=true;
  var d=row.querySelector('details.review');
  out.folded=!d.open;
  d.open=true;
  setTimeout(function(){
    out.review=d.querySelector('pre.review').textContent;
    out.extraction=row.querySelector('pre.extracted').textContent.length;
    var a=d.getBoundingClientRect(), b=row.querySelector('pre.extracted').getBoundingClientRect();
    out.beside=a.right<=b.left+1 && Math.abs(a.top-b.top)<60;
    var pre=document.createElement('pre'); pre.id='probe'; pre.textContent=JSON.stringify(out);
    document.body.appendChild(pre);
  }, 50);
}, 50); });
</script>"""


def test_demo_report_review_text_beside_extraction_and_figures_at_full_size(tmp_path: Path) -> None:
    """On a real demo run: the figures are shown at their own size (the headline strip was
    2805 px squeezed into 1200), and a row's drill-down holds its review text, folded, to the
    left of the extraction."""
    import html

    from typer.testing import CliRunner

    from prism_review.cli import app
    from prism_review.data.layout import EvalLayout, demo_root

    run = tmp_path / "run"
    res = CliRunner().invoke(app, ["evaluate", "--dimension", "constructiveness", "--dimension",
                                   "depth", "--limit", "2", "--out", str(run), "--quiet"])
    assert res.exit_code == 0, res.output
    page = (run / "report.html").read_text(encoding="utf-8")
    probe = run / "probe.html"
    probe.write_text(page.replace("<head>", "<head>" + _PROBE_HEAD, 1)
                     .replace("</body>", _PROBE_REVIEW + "</body>"), encoding="utf-8")
    out = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
         "--window-size=1280,900", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    start = out.index('<pre id="probe">') + len('<pre id="probe">')
    seen = json.loads(html.unescape(out[start : out.index("</pre>", start)]))
    assert seen["errors"] == []
    assert len(seen["imgs"]) == 2
    for natural, shown in seen["imgs"]:
        assert natural > 500 and shown >= natural - 1, seen["imgs"]  # not scaled down
    first = EvalLayout(demo_root()).load_reviews("ICLR2024", "0A5o6dCKeK", "human")[0]
    assert seen["folded"] and seen["review"] == first.text
    assert seen["extraction"] > 0 and seen["beside"]

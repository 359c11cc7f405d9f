"""One offline demo run per test module, made through the CLI (``prism evaluate``), and helpers
that read the report's tables back."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from prism_review.cli import app


def demo_run(out: Path) -> Path:
    res = CliRunner().invoke(app, ["evaluate", "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    (out.parent / "evaluate_output.txt").write_text(res.output, encoding="utf-8")  # what the terminal got
    return out


def compare_json(run: Path, a: str, b: str, *extra: str) -> dict[str, Any]:
    res = CliRunner().invoke(app, ["compare", "--run", str(run), "--a", a, "--b", b, "--json",
                                   "--n-bootstrap", "200", *extra])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.output))


def html_tables(page: str) -> list[tuple[list[str], list[list[str]]]]:
    """(header, body) of every table of a report page, cells as plain text."""
    out = []
    for tbl in re.findall(r"<table>(.*?)</table>", page, flags=re.S):
        head = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<th[^>]*>(.*?)</th>", tbl, flags=re.S)]
        body = []
        for tr in re.findall(r"<tbody>(.*?)</tbody>", tbl, flags=re.S)[0].split("</tr>") if "<tbody>" in tbl else []:
            cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, flags=re.S)
            if cells:
                body.append([html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells])
        out.append((head, body))
    return out

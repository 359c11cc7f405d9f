"""docs/extending.md, "Packaging plug-ins": the page's three toys (a dimension, a provider and a
reviewer system) built into the package the page describes, installed with pip, and found by
the plain ``prism`` command through their entry points, with no registration code.

pip installs the package into a folder put on ``PYTHONPATH`` (``--target``, offline:
``--no-index --no-build-isolation``), so the test's environment is left as it was.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prism_review.data.layout import EvalLayout, demo_root
from prism_review.pipelines.results import read_results
from prism_review.testing.llm_server import LLMServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
VENUE = "ICLR2024"
PRISM = Path(sys.executable).with_name("prism")  # the console script of this environment


def _section(title: str) -> str:
    return DOC.read_text(encoding="utf-8").split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _block(title: str, lang: str) -> str:
    blocks = re.findall(rf"```{lang}\n(.*?)```", _section(title), re.S)
    assert blocks, f"no {lang} block in '{title}'"
    return blocks[0]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's package, built from its blocks and installed by pip into a folder."""
    if not PRISM.exists():
        pytest.skip(f"no console script at {PRISM}")
    try:
        import setuptools
    except ImportError:
        pytest.skip("setuptools is not installed")
    if tuple(int(x) for x in setuptools.__version__.split(".")[:2]) < (70, 1):
        pytest.skip("setuptools >= 70.1 (the dev extra's) is needed to build a wheel offline")
    src = tmp_path_factory.mktemp("pkg")
    (src / "pyproject.toml").write_text(_block("Packaging plug-ins", "toml"), encoding="utf-8")
    pkg = src / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "wordcount.py").write_text(_block("Adding a dimension", "python"), encoding="utf-8")
    (pkg / "toy_provider.py").write_text(_block("Adding a provider", "python"), encoding="utf-8")
    (pkg / "toy_reviewer.py").write_text(_block("Adding a reviewer system", "python"), encoding="utf-8")
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(target), str(src)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (target / "mypkg" / "toy_reviewer.py").exists()
    return target


def _prism(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    full = {**os.environ, "PYTHONPATH": path, "PRISM_RETRY_BASE": "0.01", **env}
    full.pop("OPENAI_API_KEY", None)
    return subprocess.run([str(PRISM), *args], capture_output=True, text=True, env=full,
                          timeout=600)


def _toy_copy(root: Path, limit: int) -> list[str]:
    """A copy of the demo whose ICLR2024 venue has a ``toy/`` folder of Markdown reviews."""
    shutil.copytree(demo_root(), root)
    layout = EvalLayout(root)
    written = []
    (root / VENUE / "toy").mkdir()
    for pid in layout.paper_ids(VENUE)[:limit]:
        reviews = layout.load_reviews(VENUE, pid, "gpt4")
        if reviews:
            body = "\n\n".join(f"## {s.name}\n\n{s.text}" for s in reviews[0].sections)
            (root / VENUE / "toy" / f"{pid}.md").write_text(body, encoding="utf-8")
            written.append(pid)
    return written


def test_installed_plugins_are_found_by_plain_prism(installed: Path, tmp_path: Path) -> None:
    root = tmp_path / "data"
    written = _toy_copy(root, limit=3)
    assert len(written) >= 2, written  # a paper without a gpt4 review has no toy file
    out = tmp_path / "run"
    proc = _prism(installed, "evaluate", "--data", str(root), "--venue", VENUE, "--dimension",
                  "wordcount", "--system", "toy", "--system", "human", "--limit", "3",
                  "--out", str(out), "--no-report", "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_results(out / "results.jsonl")
    toy = [r for r in rows if r.system == "toy"]
    assert sorted(r.paper_id for r in toy) == sorted(written)
    assert all(r.dimension == "wordcount" and r.status == "ok" and r.metrics["words"] > 0
               for r in toy)
    assert {r.system for r in rows} == {"toy", "human"}
    table = (out / "summary.md").read_text(encoding="utf-8")
    assert re.search(r"\|\s*Words\s*\|", table), table  # the dimension's Table-1 column
    assert re.search(r"\|\s*toy\s*\|", table), table


def test_installed_provider_runs_against_the_loopback_server(installed: Path, tmp_path: Path) -> None:
    server = LLMServer(schema_seed=3)
    server.api_key = "toy-secret"
    server.start()
    try:
        out = tmp_path / "run"
        args = ("evaluate", "--judge", "toy/test-model", "--base-url", server.base_url,
                "--dimension", "depth", "--limit", "2", "--no-cache", "--out", str(out),
                "--no-report", "--quiet")
        refused = _prism(installed, *args, TOY_API_KEY="wrong")
        assert refused.returncode != 0
        proc = _prism(installed, *args, TOY_API_KEY="toy-secret")
        assert proc.returncode == 0, proc.stdout + proc.stderr
    finally:
        server.stop()
    rows = read_results(out / "results.jsonl")
    assert rows and all(r.status == "ok" for r in rows), [(r.status, r.error) for r in rows]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert "toy/test-model" in json.dumps(manifest)

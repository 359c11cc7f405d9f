"""No function over 120 lines in ``prism_review.cli`` and ``prism_review.pipelines`` (issue 29).

The two packages hold the run: a long function there mixes option checks, engine choice, error
mapping and printing, and is where a change breaks what it did not mean to touch. Read from the
source with ``ast`` (nothing is imported); a function's length runs from its ``def`` line to its
last line (a nested function counts in its parent too, and on its own).
"""

from __future__ import annotations

import ast
from pathlib import Path

import prism_review

PKG = Path(prism_review.__file__).resolve().parent
LIMIT = 120
PACKAGES = ("cli", "pipelines")


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function in ``source`` longer than ``limit`` lines."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                out.append((node.name, node.lineno, length))
    return out


def test_the_count_sees_a_long_function() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    assert long_functions(f"def short():\n    return 1\n\nasync def long():\n{body}") == [
        ("long", 4, LIMIT + 1)
    ]
    nested = "class C:\n    def m(self):\n        def inner():\n" + body.replace("    ", "            ")
    assert [n for n, _, _ in long_functions(nested)] == ["m", "inner"]


def test_no_function_over_the_limit_in_cli_and_pipelines() -> None:
    files = [f for p in PACKAGES for f in sorted((PKG / p).rglob("*.py"))]
    assert len(files) > 10  # the packages were found
    found = [
        f"{f.relative_to(PKG)}:{line} {name} is {length} lines"
        for f in files
        for name, line, length in long_functions(f.read_text(encoding="utf-8"))
    ]
    assert not found, f"functions over {LIMIT} lines (split them): " + "; ".join(found)

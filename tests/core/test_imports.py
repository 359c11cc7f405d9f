"""The package's import graph: no cycles among prism_review's modules, and product code never
imports the test helpers in ``prism_review.testing``.

The graph is read from the source with ``ast`` (nothing is imported). It counts every import of
a prism_review module, at module level or inside a function (a function-level import that
closes a cycle only postpones it), but not ``if TYPE_CHECKING:`` blocks, which never run.
Importing ``a.b.c`` also runs the ``__init__`` of ``a.b``, so that package is an edge too,
unless it is a package of the importing module itself (initialised before the module runs; a
call-time import of it, e.g. to list its modules, is no edge either).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import prism_review

SRC = Path(prism_review.__file__).resolve().parent.parent
TESTING = "prism_review.testing"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name → (file, is a package), for every module of the installed source tree."""
    out = {}
    for path in sorted((SRC / "prism_review").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, type_checking: bool = False
             ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement that can run (anywhere, except under ``if TYPE_CHECKING:`` unless
    ``type_checking``) and whether it runs at call time (inside a function) rather than at
    import time."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, lazy = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, lazy
            continue
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
            stack.extend((n, lazy) for n in node.orelse)
            continue
        inner = lazy or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        stack.extend((n, inner) for n in ast.iter_child_nodes(node))


def import_graph(type_checking: bool = False) -> dict[str, dict[str, int]]:
    """Module → {imported prism_review module: line of the first such import} (with
    ``type_checking``, the imports under ``if TYPE_CHECKING:`` too)."""
    mods = _modules()
    graph: dict[str, dict[str, int]] = {}
    for name, (path, is_pkg) in mods.items():
        edges = graph.setdefault(name, {})
        package = name if is_pkg else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, lazy in _imports(tree, type_checking):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:  # relative: from the package, one level up per extra dot
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            for target in targets:
                while target and target not in mods:  # an attribute of a module: the module
                    target = target.rpartition(".")[0]
                if not target or target == name:
                    continue
                parts = target.split(".")
                for k in range(1, len(parts) + 1):
                    mod = ".".join(parts[:k])
                    # a package of the importing module is initialised before it: importing
                    # it is no edge, except by name at import time (it may be half-built then)
                    own_package = (name + ".").startswith(mod + ".")
                    named = k == len(parts) and not lazy
                    if mod in mods and mod != name and (named or not own_package):
                        edges.setdefault(mod, node.lineno)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph.get(w, {}))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def _describe(graph: dict[str, dict[str, int]], comp: list[str]) -> str:
    inside = set(comp)
    edges = [f"  {a} imports {b} (line {line})" for a in comp
             for b, line in sorted(graph[a].items()) if b in inside]
    return "\n".join([" <-> ".join(comp), *edges])


def test_the_graph_sees_imports_of_every_kind() -> None:
    """The reader finds module-level, function-level and relative imports (else the acyclicity
    test below could pass on an empty graph)."""
    graph = import_graph()
    assert "prism_review.judge.depth.models" in graph["prism_review.judge.depth.offline"]
    assert "prism_review.report.html" in graph["prism_review.report"]  # inside a function
    evaluate = graph["prism_review.cli.evaluate"]
    assert {"prism_review.report.fidelity", "prism_review.report"} <= set(evaluate)  # + package
    assert "prism_review.cli" not in evaluate  # its own package is no edge
    assert "prism_review.dimensions" not in graph["prism_review.dimensions.base"]  # at call time
    assert len(graph) > 150 and sum(len(e) for e in graph.values()) > 500


def test_cycle_finder_reports_a_cycle() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_import_cycles_among_prism_review_modules() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles (move the shared part into a module both can import):\n" + (
        "\n".join(_describe(graph, c) for c in found)
    )


def test_product_code_never_imports_the_test_helpers() -> None:
    graph = import_graph()
    bad = [
        f"{mod} imports {dep} (line {line})"
        for mod, deps in graph.items()
        if not (mod == TESTING or mod.startswith(TESTING + "."))
        for dep, line in deps.items()
        if dep == TESTING or dep.startswith(TESTING + ".")
    ]
    assert not bad, "product code imports prism_review.testing:\n" + "\n".join(bad)


def room(module: str) -> str:
    """The subpackage a module belongs to (``prism_review.llm.judge`` → ``llm``); a top-level
    module (``prism_review.records``) is a room of its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def subpackage_graph() -> dict[str, dict[str, str]]:
    """Room → {room it imports: one import that makes the edge}, counting every import a module
    has (module level, inside functions, under ``if TYPE_CHECKING:``): they all tie two rooms
    together for a reader, whether or not they run at import time."""
    rooms: dict[str, dict[str, str]] = {}
    for mod, deps in import_graph(type_checking=True).items():
        edges = rooms.setdefault(room(mod), {})
        for dep, line in deps.items():
            if room(dep) != room(mod):
                edges.setdefault(room(dep), f"{mod} imports {dep} (line {line})")
    return rooms


def test_the_subpackage_graph_counts_type_checking_and_call_time_imports() -> None:
    graph = subpackage_graph()
    assert {"dimensions", "judge", "llm", "pipelines", "systems", "data", "guards"} <= set(graph)
    assert "judge" in graph["llm"] and "dimensions" in graph["pipelines"]
    assert graph["guards"] == {}  # the leaf every reader of user input shares imports nothing
    assert room("prism_review.llm.judge") == "llm" and room("prism_review.records") == "records"
    # engines imports dimensions.base under TYPE_CHECKING only: an edge here, not at run time
    assert "prism_review.dimensions.base" not in import_graph()["prism_review.pipelines.engines"]
    assert "prism_review.dimensions.base" in import_graph(True)["prism_review.pipelines.engines"]


def test_no_import_cycle_between_subpackages() -> None:
    """Arrows only go down: no two subpackages import each other, directly or around a loop
    (e.g. dimensions -> pipelines -> dimensions), at any import level."""
    graph = subpackage_graph()
    found = cycles({a: dict.fromkeys(b, 0) for a, b in graph.items()})
    described = []
    for comp in found:
        inside = set(comp)
        described.append(" <-> ".join(comp) + "\n" + "\n".join(
            f"  {a} -> {b}: {why}" for a in comp for b, why in sorted(graph[a].items()) if b in inside))
    assert not found, "import cycles between subpackages:\n" + "\n".join(described)


TRAINING = "prism_review.training"


def test_nothing_a_run_executes_imports_the_training_code() -> None:
    """Training, export and CV code lives in ``prism_review.training``, which imports the judges;
    no module outside it may import it (not even inside a function), so a run never loads it."""
    graph = import_graph()
    inside = {m for m in graph if m == TRAINING or m.startswith(TRAINING + ".")}
    # the package is where this test looks: it exists and it imports the judges it trains
    assert "prism_review.training.constructiveness.train" in inside
    assert "prism_review.judge.constructiveness.model" in graph[
        "prism_review.training.constructiveness.train"]
    bad = [
        f"{mod} imports {dep} (line {line})"
        for mod, deps in graph.items()
        if mod not in inside
        for dep, line in deps.items()
        if dep in inside
    ]
    assert not bad, "run-time code imports prism_review.training:\n" + "\n".join(bad)

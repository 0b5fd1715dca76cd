"""The Python package's shape: one module imports the engine binding, and the modules'
top-level imports form no cycle (imports inside functions, made on first use, and
``TYPE_CHECKING`` blocks are not dependencies at import time and are left out)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "cclab"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path) -> set[str]:
    """cclab modules imported at module level (not in functions or TYPE_CHECKING blocks)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(nodes) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name.startswith("cclab"))
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cclab"):
                # "from cclab.papers import framework" imports the module cclab.papers.framework
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)

    visit(tree.body)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    edges = {}
    for name, path in modules.items():
        targets = set()
        for imported in top_level_imports(path):
            if imported == "cclab._core":  # the binding: no Python imports behind it
                continue
            while imported not in modules and "." in imported:  # a name from a module
                imported = imported.rsplit(".", 1)[0]
            # A package's __init__ runs before any of its modules anyway: not an edge.
            if imported in modules and imported != name and not name.startswith(imported + "."):
                targets.add(imported)
        edges[name] = targets
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := walk(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(edges):
        if node not in state and (cycle := walk(node)):
            return cycle
    return []


def test_package_imports_have_no_cycle():
    edges = graph()
    assert len(edges) > 30 and edges["cclab.runs.api"]  # the graph was really built
    assert find_cycle(edges) == []


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_only_core_imports_the_binding():
    importers = sorted(module_name(path) for path in PACKAGE.rglob("*.py")
                       if "_core" in {alias for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                                      for alias in _imported_names(node)})
    assert importers == ["cclab.core"]


def _imported_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [part for alias in node.names for part in alias.name.split(".")]
    if isinstance(node, ast.ImportFrom):
        return [*(node.module or "").split("."), *(alias.name for alias in node.names)]
    return []

"""The Python package's shape: one module imports the engine binding, and the modules'
imports form no cycle — every import counts, at the top, inside a function (made on
first use) or in a ``TYPE_CHECKING`` block, as a reader of the code (or a structure
tool) sees the dependencies."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "cclab"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """cclab modules (or names in them) that ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("cclab"))
        elif isinstance(node, ast.ImportFrom):
            module = _absolute_module(path, node)
            if module.startswith("cclab"):
                # "from cclab.papers import framework" imports the module cclab.papers.framework
                found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _absolute_module(path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[:len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    edges = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_modules(path):
            if imported.split(".")[:2] == ["cclab", "_core"]:  # the binding: no Python imports behind it
                continue
            while imported not in modules and "." in imported:  # a name from a module
                imported = imported.rsplit(".", 1)[0]
            if imported in modules and imported != name:
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
    assert "cclab.papers.framework" in edges["cclab.cli.papers"]  # (imported inside a function)
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


# A module past this many lines is doing more than one job: split it by job (issue 36).
MAX_MODULE_LINES = 700


def test_no_python_module_is_over_the_limit():
    repo = PACKAGE.parents[1]
    sizes = {str(path.relative_to(repo)): len(path.read_text(encoding="utf-8").splitlines())
             for folder in ("python", "bench") for path in (repo / folder).rglob("*.py")}
    assert len(sizes) > 50  # the modules were really found
    assert {path: lines for path, lines in sizes.items() if lines > MAX_MODULE_LINES} == {}

"""The import graph the README draws, enforced: dependencies point inward.

registry is the core (imports no crawler, api or actiondex); crawler and api are adapters
around it and never import each other; actiondex is the composition root and runs Scrapy only
through crawler/, so it imports no scrapy or twisted; inside registry, search reads the index
and the index never reads search; bench imports no tests module, and harness (what both
share) imports neither. Every import counts, also one inside a function. And no
module of the project (bench/ included) imports, through any chain, a module that imports it.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

# package (or sub-package) -> top-level names its modules must never import
FORBIDDEN = {
    "registry": {"crawler", "api", "actiondex", "scrapy", "twisted", "fastapi", "starlette", "mcp"},
    "registry/index": {"registry.search"},
    "api": {"crawler", "actiondex", "scrapy", "twisted"},
    "crawler": {"api", "actiondex", "fastapi", "starlette"},
    "actiondex": {"scrapy", "twisted"},
    "migrations": {"crawler", "api", "actiondex", "scrapy", "twisted", "fastapi"},
    # What tests and benches share lives in harness/, which neither may be imported by.
    "bench": {"tests"},
    "harness": {"tests", "bench"},
}


def statements(path: Path) -> Iterator[tuple[str, list[str]]]:
    """Each import statement of ``path`` (also inside functions and ``if TYPE_CHECKING``) as
    (module, names): ``import a.b`` is ("a.b", []), ``from .c import d`` is ("pkg.c", ["d"])."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base]) if base else ".".join(parent)
            yield base, [alias.name for alias in node.names]


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, as dotted names (relative imports resolved)."""
    names: set[str] = set()
    for base, aliases in statements(path):
        names.add(base)
        names.update(f"{base}.{alias}" for alias in aliases)
    return names


def breaks(name: str, forbidden: set[str]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_inward(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules: the architecture test is out of date"
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in sorted(imported(path))
        if breaks(name, FORBIDDEN[package])
    ]
    assert not wrong, "\n".join(wrong)


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = ROOT / "tests" / "_architecture_probe.py"
    module.write_text("def later():\n    from scrapy.crawler import CrawlerProcess\n")
    try:
        assert "scrapy.crawler" in imported(module)
    finally:
        module.unlink()


def test_test_modules_import_no_other_test_module() -> None:
    """Shared test helpers live in conftest.py or a helpers module, never in a test module
    that another one imports (collecting it would run its tests twice)."""
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        for name in imported(path)
        if name.split(".")[-1].startswith("test_") and name.startswith("tests")
    ]
    assert not wrong, "\n".join(wrong)


# The project's packages whose modules must form no circle of imports.
PACKAGES = ("registry", "crawler", "api", "actiondex", "migrations", "bench", "harness")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(paths: list[Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports. ``from a.b import c`` depends on the module
    a.b.c when there is one, else on a.b (a package's __init__); a submodule's own package,
    which Python runs first, is no edge of its own."""
    modules = {module_name(path): path for path in paths}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, set())
        for base, aliases in statements(path):
            found = {f"{base}.{a}" for a in aliases if f"{base}.{a}" in modules}
            if len(found) < len(aliases) or not aliases:  # names read from base itself
                found.add(base)
            edges.update(m for m in found if m in modules and m != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_through_others() -> None:
    paths = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert all(any(module_name(p).startswith(pkg) for p in paths) for pkg in PACKAGES)
    found = circles(import_graph(paths))
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_circle_check_sees_a_circle_through_a_function(tmp_path: Path) -> None:
    folder = ROOT / "tests" / "_circle_probe"
    folder.mkdir()
    try:
        (folder / "__init__.py").write_text("")
        (folder / "a.py").write_text("from tests._circle_probe.b import B\nA = 1\n")
        (folder / "b.py").write_text("def later():\n    from tests._circle_probe import a\n")
        graph = import_graph(sorted(folder.glob("*.py")))
        assert circles(graph) == [["tests._circle_probe.a", "tests._circle_probe.b"]]
    finally:
        shutil.rmtree(folder)

"""The import graph the README draws, enforced: dependencies point inward.

registry is the core (imports no crawler, api or actiondex); crawler and api are adapters
around it and never import each other; actiondex is the composition root and runs Scrapy only
through crawler/, so it imports no scrapy or twisted; inside registry, search reads the index
and the index never reads search. Every import counts, also one inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

# package (or sub-package) -> top-level names its modules must never import
FORBIDDEN = {
    "registry": {"crawler", "api", "actiondex", "scrapy", "twisted", "fastapi", "starlette",
                 "mcp"},
    "registry/index": {"registry.search"},
    "api": {"crawler", "actiondex", "scrapy", "twisted"},
    "crawler": {"api", "actiondex", "fastapi", "starlette"},
    "actiondex": {"scrapy", "twisted"},
    "migrations": {"crawler", "api", "actiondex", "scrapy", "twisted", "fastapi"},
}


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, as dotted names (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base]) if base else ".".join(parent)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def breaks(name: str, forbidden: set[str]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_inward(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules: the architecture test is out of date"
    wrong = [f"{path.relative_to(ROOT)} imports {name}"
             for path in files for name in sorted(imported(path))
             if breaks(name, FORBIDDEN[package])]
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
    wrong = [f"{path.relative_to(ROOT)} imports {name}"
             for path in sorted((ROOT / "tests").rglob("test_*.py"))
             for name in imported(path)
             if name.split(".")[-1].startswith("test_") and name.startswith("tests")]
    assert not wrong, "\n".join(wrong)

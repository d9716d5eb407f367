"""One-way imports between the packages (STYLE.md "Shape"), checked on the source."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.helpers.paths import ROOT


def imports(package: str) -> Iterator[tuple[str, str, list[str]]]:
    """(file, module, names) for every import in ``package``, lazy ones included."""
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            where = str(path.relative_to(ROOT))
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield where, alias.name, []
            elif isinstance(node, ast.ImportFrom):
                yield where, node.module or "", [alias.name for alias in node.names]


def test_the_composition_root_imports_no_scrapy_or_twisted() -> None:
    # actiondex/ calls crawler functions that take plain types; Scrapy stays inside crawler/.
    found = [(f, m) for f, m, _ in imports("actiondex")
             if m.split(".")[0] in ("scrapy", "twisted")]
    assert found == []


def test_the_crawler_reaches_the_store_only_through_registry_services() -> None:
    statements = {"select", "update", "insert", "delete", "text"}
    found = [(f, m, names) for f, m, names in imports("crawler")
             if m == "registry.models" or (m.split(".")[0] == "sqlalchemy"
                                           and statements & set(names))]
    assert found == []

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
    found = [(f, m) for f, m, _ in imports("actiondex") if m.split(".")[0] in ("scrapy", "twisted")]
    assert found == []


def test_the_crawler_reaches_the_store_only_through_registry_services() -> None:
    statements = {"select", "update", "insert", "delete", "text"}
    found = [
        (f, m, names)
        for f, m, names in imports("crawler")
        if m == "registry.db.tables"
        or (m.split(".")[0] == "sqlalchemy" and statements & set(names))
    ]
    assert found == []


# registry/ by floor: a module imports only from its own floor's packages or from floors below.
FLOORS = (
    # the action model and settings: plain values; the signing key the settings point at
    ("registry.model", "registry.config", "registry.identity"),
    ("registry.db", "registry.formats", "registry.calls"),  # engine and tables; readers; planner
    ("registry.normalising", "registry.placement", "registry.index"),
    ("registry.search", "registry.validate", "registry.submissions"),
    ("registry.store", "registry.ard"),  # the use cases on top
)


def _floor(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "registry" or len(parts) < 2:
        return None
    name = ".".join(parts[:2])
    return next((level for level, names in enumerate(FLOORS) if name in names), None)


def test_every_registry_package_has_a_floor() -> None:
    folders = {f"registry.{p.parent.name}" for p in (ROOT / "registry").glob("*/__init__.py")}
    modules = {
        f"registry.{p.stem}" for p in (ROOT / "registry").glob("*.py") if p.stem != "__init__"
    }
    assert sorted(n for n in folders | modules if _floor(n) is None) == []


def test_registry_imports_point_down_the_floors() -> None:
    upward = []
    for where, module, _ in imports("registry"):
        mine = _floor(where.removesuffix(".py").replace("/", "."))
        theirs = _floor(module)
        if mine is not None and theirs is not None and theirs > mine:
            upward.append(f"{where} imports {module}")
    assert upward == []

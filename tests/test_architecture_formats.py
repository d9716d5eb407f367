"""Format facts live in the format modules: nothing outside registry/formats/ names a format
or a file a format is published under; it asks the ``registry.formats`` facade instead. So a
new format is one module, one FORMATS entry and its fixtures, and no list elsewhere goes stale.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from registry.formats import (
    FORMATS,
    link_relations,
    names_a_manifest,
    published_path,
    references_cross_hosts,
    well_known_names,
)
from tests.helpers.paths import ROOT

FORMATS_DIR = ROOT / "registry" / "formats"
SOURCES = sorted(
    path
    for top in ("actiondex", "api", "crawler", "registry")
    for path in (ROOT / top).rglob("*.py")
    if FORMATS_DIR not in path.parents
)
NAMES = {module.NAME for module in FORMATS}
# A file name as a whole word of a string: "/.well-known/ai-plugin.json", "publish agents.json,"
FILE_NAMES = re.compile(
    "|".join(rf"(?<![\w.-]){re.escape(name)}(?![\w-])" for name in sorted(well_known_names()))
)


def _literals(path: Path) -> list[tuple[int, str]]:
    """The strings in a file's code: docstrings (prose for readers) are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
    ]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_format_fact_outside_the_format_modules(path: Path) -> None:
    found = [
        f"line {line}: {value!r}"
        for line, value in _literals(path)
        if value in NAMES or FILE_NAMES.search(value)
    ]
    assert not found, f"{path.relative_to(ROOT)} names format facts; ask registry.formats: {found}"


@pytest.mark.parametrize(
    "path", sorted((ROOT / "api").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_api_never_imports_the_crawler(path: Path) -> None:
    """Pages, placement and validation are registry's; the URL form runs the crawler in a
    child process."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    names += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [n for n in names if n.split(".")[0] in ("crawler", "scrapy")], path


def test_the_scan_catches_what_it_should() -> None:
    assert FILE_NAMES.search("publish /.well-known/agent-actions.json, or a page")
    assert FILE_NAMES.search("ai-plugin.json") and not FILE_NAMES.search("my-ai-plugin.json")
    assert not FILE_NAMES.search("/.well-known/actiondex-probe-1f2e")
    assert "wildcard-agents-json" in NAMES and len(SOURCES) > 40


def test_facts_come_from_the_modules() -> None:
    assert {
        "agent-actions.json",
        "agents.json",
        "ai-plugin.json",
        "api-catalog",
        "mcp.json",
        "server-card.json",
        "llms.txt",
    } <= well_known_names()
    assert published_path("ai-plugin.json") == "/.well-known/ai-plugin.json"
    assert published_path("server-card.json") == "/.well-known/mcp/server-card.json"
    assert published_path("openapi.json") == "/openapi.json"
    assert published_path("notes.json") == "/notes.json" and published_path("") == "/"
    assert names_a_manifest("https://x.example/specs/swagger.yaml?v=2")
    assert not names_a_manifest("https://x.example/blog/agents")
    assert link_relations() == {"describedby", "ard", "ai-catalog", "api-catalog", "service-desc"}


def test_which_formats_reference_across_hosts_is_each_module_s_word() -> None:
    """The crawler once kept its own list, naming "wildcard" where the module's NAME is
    "wildcard-agents-json": its OpenAPI sources on other hosts were never fetched."""
    crossing = {module.NAME for module in FORMATS if references_cross_hosts(module.NAME)}
    assert crossing == {"ai-plugin", "api-catalog", "ard", "mcp", "wildcard-agents-json"}
    assert not references_cross_hosts("no-such-format")

"""Each bound said once: an id's and a host's form, a page's size, the Crawl-delay cap and the
cursor of a newest-first page each have one home, and the doors (api/, actiondex/) import it
instead of writing their own. Checked on the source."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from registry.model.bounds import HOST_PATTERN, ID_PATTERN
from registry.model.schemas import stable_id
from tests.helpers.paths import ROOT

PACKAGES = ("registry", "crawler", "api", "actiondex", "migrations", "bench")
BOUNDS = "registry/model/bounds.py"
# name -> the one module that may declare it (None: an old second name nothing may use again).
HOMES: dict[str, str | None] = {
    "ID_CHARS": BOUNDS,
    "ID_PATTERN": BOUNDS,
    "Id": BOUNDS,
    "MAX_SITE_CHARS": BOUNDS,
    "SiteName": BOUNDS,
    "HOST_PATTERN": BOUNDS,
    "MAX_PAGE": BOUNDS,
    "MAX_ROW_ID": BOUNDS,
    "MAX_LIMIT": "registry/search/contract.py",  # results on one page of /find
    "MAX_CRAWL_DELAY": "crawler/robots.py",
    "CURSOR_PATTERN": "registry/store/keyset.py",
    "BadCursor": "registry/store/keyset.py",
    "SITE_CURSOR_PATTERN": "registry/store/site_list.py",  # GET /sites: a place in its order
    "MAX_CURSOR": None,
    "MAX_RUNS": None,
    "MAX_HISTORY": None,
}
# Parameters that name an action or flow id or a site: their bounds come from BOUNDS.
ID_OR_HOST = {"id", "action_id", "host"}
OTHER_IDS = {"api/routes/submissions.py"}  # its {id} is a submission's token, not an action's
BOUND_WORDS = {"min_length", "max_length", "pattern"}


def sources(root: Path) -> Iterator[tuple[str, ast.Module, str]]:
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text()
            yield str(path.relative_to(root)), ast.parse(text, filename=str(path)), text


def declared(tree: ast.Module) -> Iterator[str]:
    """Names a module binds at its top: assignments, classes, and imports ``as`` a new name."""
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.ImportFrom):
            yield from (
                alias.asname for alias in node.names if alias.asname and alias.asname != alias.name
            )
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    yield name.id


def redeclared(root: Path) -> list[str]:
    return sorted(
        f"{where}: {name}"
        for where, tree, _ in sources(root)
        for name in declared(tree)
        if name in HOMES and HOMES[name] != where
    )


def _bounded(annotation: ast.expr | None, aliases: dict[str, bool]) -> bool:
    """Whether an annotation writes a length or pattern itself (or through a local alias)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Name):
        return aliases.get(annotation.id, False)
    return any(
        isinstance(node, ast.Call) and {k.arg for k in node.keywords} & BOUND_WORDS
        for node in ast.walk(annotation)
    )


def door_bounds(root: Path) -> list[str]:
    """Parameters naming an id or a host whose bound a door wrote itself."""
    found = []
    for where, tree, _ in sources(root):
        if where in OTHER_IDS:
            continue
        aliases = {
            target.id: _bounded(node.value, {})
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found += [
                    f"{where}: {node.name}({arg.arg})"
                    for arg in node.args.args + node.args.kwonlyargs
                    if arg.arg in ID_OR_HOST and _bounded(arg.annotation, aliases)
                ]
    return found


def patterns_copied(root: Path) -> list[str]:
    """The id's and the host's patterns written out anywhere but their home."""
    id_form = ID_PATTERN.strip("^$")
    return [
        where
        for where, _, text in sources(root)
        if where != BOUNDS and (HOST_PATTERN in text or id_form in text)
    ]


def test_each_bound_is_declared_in_its_home_only() -> None:
    assert redeclared(ROOT) == []


def test_no_door_bounds_an_id_or_a_host_itself() -> None:
    assert door_bounds(ROOT) == []


def test_the_id_and_host_patterns_are_written_once() -> None:
    assert patterns_copied(ROOT) == []


def test_the_checks_find_a_second_declaration(tmp_path: Path) -> None:
    """What these checks would have said of main before the bounds had their home."""
    door = tmp_path / "api" / "routes" / "door.py"
    door.parent.mkdir(parents=True)
    door.write_text(
        "from typing import Annotated\n"
        "from fastapi import Path\n"
        "from registry.store.history import MAX_PAGE as MAX_HISTORY\n"
        "LIMIT, MAX_LIMIT = 10, 500\n"
        "MAX_CRAWL_DELAY: float = 30.0\n"
        "Host = Annotated[str, Path(min_length=1, max_length=300)]\n"
        "def site(host: Host) -> None: ...\n"
        "async def action(id: Annotated[str, Path(max_length=64)]) -> None: ...\n"
        f"HOST = r'{HOST_PATTERN}'\n"
    )
    assert redeclared(tmp_path) == [
        f"api/routes/door.py: {name}" for name in ("MAX_CRAWL_DELAY", "MAX_HISTORY", "MAX_LIMIT")
    ]
    assert door_bounds(tmp_path) == [
        "api/routes/door.py: site(host)",
        "api/routes/door.py: action(id)",
    ]
    assert patterns_copied(tmp_path) == ["api/routes/door.py"]


def test_an_id_has_the_form_stable_id_gives_it() -> None:
    assert re.fullmatch(ID_PATTERN, stable_id("shop.example", "openapi", "/api#search"))

"""Tests that share something costly run on one xdist worker (`--dist loadgroup`).

A module-scoped fixture is set up once per worker that runs any test of its module: with
plain ``--dist load`` the hostile crawl (tests/crawler/test_crawler_hostile.py) ran on every
worker that drew one of its tests. So every test that uses a module-scoped fixture is put in
its module's ``xdist_group``, and a module may ask for the same by name with
``pytest.mark.xdist_group`` (tests/registry/test_corpus.py caches the corpus in-process).

pytest 9.2 ignores the id suffix pytest-xdist 3.8 uses to group (the Makefile's pin keeps
pytest below 9.2 until xdist follows).
"""

from __future__ import annotations

import pytest


def shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None and shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))

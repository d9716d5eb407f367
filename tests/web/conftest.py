"""The web pages in-process over a committed store (the pages read it through the app's own
engine, as a server does), on SQLite and PostgreSQL: the shop and news sites plus one hostile
site whose texts hold markup that must reach the page as text."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.app import create_app
from harness.db import BACKENDS, engine_for, fresh_pg_database
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.index import ActionIndex
from registry.store.crawl_state import finish_run, start_run
from tests.helpers.stores import add_site, shop_and_news

SCRIPT = "<script>alert('owned')</script>"


def hostile_site(session: object) -> None:
    # Written with the models directly, past the sanitiser: the page must escape on its own.
    add_site(
        session,
        "evil.example",
        [  # type: ignore[arg-type]
            {
                "name": "steal",
                "title": f"Steal cookies {SCRIPT}",
                "description": f"Harmless, really {SCRIPT}",
                "effect": "send",
                "method": "POST",
                "endpoint": 'https://evil.example/x?a="><img src=x onerror=alert(1)>',
                "input_schema": {
                    "type": "object",
                    "properties": {"victim": {"type": "string", "description": SCRIPT}},
                },
            },
        ],
        name=f"Evil {SCRIPT}",
        description=f"About us {SCRIPT}",
    )


def bakery(session: object) -> None:
    """An action whose input has every kind of form field: required, integer, enum, boolean,
    an object (typed as JSON), and a cost."""
    add_site(
        session,
        "bakery.example",
        [  # type: ignore[arg-type]
            {
                "name": "order_cake",
                "title": "Order a cake",
                "effect": "spend",
                "method": "POST",
                "cost": {"amount": 12.5, "currency": "EUR"},
                "scope": "orders:write",
                "input_schema": {
                    "type": "object",
                    "required": ["size"],
                    "properties": {
                        "size": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": 5,
                            "description": "How many people it feeds, in tens",
                        },
                        "flavour": {"type": "string", "enum": ["lemon", "chocolate"]},
                        "gift": {"type": "boolean"},
                        "address": {"type": "object", "properties": {"city": {"type": "string"}}},
                    },
                },
            },
        ],
        name="Bakery",
    )
    run = start_run(session, "crawl", ["https://bakery.example/"])  # type: ignore[arg-type]
    finish_run(
        session,
        run,
        {
            "sites": 1,
            "site_errors": {  # type: ignore[arg-type]
                "bakery.example": ["robots-unavailable"]
            },
        },
    )


@pytest.fixture(scope="module", params=BACKENDS)
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Engine, ActionIndex, Path]]:
    """A migrated store holding the three sites, committed, and its index."""
    folder = tmp_path_factory.mktemp("web")
    if request.param == "sqlite":
        yield _filled(f"sqlite:///{folder / 'web.db'}", folder)
        return
    with fresh_pg_database(f"actiondex_w{os.getpid()}") as url:
        engine, index, folder = _filled(url, folder)
        yield engine, index, folder
        engine.dispose()


def _filled(url: str, folder: Path) -> tuple[Engine, ActionIndex, Path]:
    engine = engine_for(url, folder)
    migrate(engine)
    index = ActionIndex.open(folder / "index")
    with transaction(engine) as session:
        shop_and_news(session)
        hostile_site(session)
        bakery(session)
        session.flush()
        index.sync(session)
    return engine, index, folder


@pytest.fixture
def client(store: tuple[Engine, ActionIndex, Path]) -> Iterator[TestClient]:
    engine, index, folder = store
    app = create_app(Settings(data_dir=folder), index=index, engine=engine)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client

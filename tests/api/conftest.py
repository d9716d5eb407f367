"""A live app over a committed store (its own database on each backend, migrated): the REST
resources read it through their own sessions, as in production."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.app import create_app
from harness.db import BACKENDS, engine_for, fresh_pg_database
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.index import ActionIndex
from tests.helpers.stores import shop_and_news, store_fixture

# The sites of the store: one agent-actions shop with a flow, OpenAPI, Schema.org pages,
# and the two hand-made sites of tests.helpers.stores.
FIXTURE_SITES = (
    "agent-actions/full-shop.json",
    "openapi/petstore-31.json",
    "schemaorg/webmcp-forms.html",
    "wildcard-agents-json/harbour-flows.json",
)


@dataclass
class Live:
    client: TestClient
    engine: Engine


@pytest.fixture(scope="module", params=BACKENDS)
def live_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Live]:
    data = tmp_path_factory.mktemp("store")
    if request.param == "sqlite":
        yield from _live(f"sqlite:///{data / 'store.db'}", data)
    else:
        with fresh_pg_database(f"actiondex_r{os.getpid()}") as url:
            yield from _live(url, data)


def _live(url: str, data: Path) -> Iterator[Live]:
    engine = engine_for(url, data)
    migrate(engine)
    with transaction(engine) as session:
        shop_and_news(session)
        for fixture in FIXTURE_SITES:
            store_fixture(session, fixture)
    index = ActionIndex.open(data / "index")
    with transaction(engine) as session:
        index.sync(session)
    app = create_app(Settings(data_dir=data, rate_limit=0), index=index, engine=engine)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Live(client, engine)
    engine.dispose()

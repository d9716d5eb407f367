"""Shared fixtures: migrated databases (SQLite and a real PostgreSQL), one rollback per test.

The PostgreSQL databases come from harness.db (ACTIONDEX_TEST_DATABASE_URL). If no
PostgreSQL can be reached, the PG tests fail loudly: `make test` starts the machine's server
before pytest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from harness.db import BACKENDS, engine_for, fresh_pg_database
from registry.db.engine import migrate

# Markers for the test tiers (make test-fast): tests/tiers.py.
pytest_plugins = ["tests.tiers", "tests.sharing", "tests.ordering"]


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session."""
    with fresh_pg_database(f"actiondex_t{os.getpid()}") as url:
        yield url


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.db'}"


@pytest.fixture(scope="session", params=BACKENDS)
def engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """A migrated engine per backend. Every test using it runs once on each database."""
    fixture = "pg_database" if request.param == "postgresql" else "sqlite_url"
    eng = engine_for(request.getfixturevalue(fixture), tmp_path_factory.mktemp("data"))
    migrate(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session inside a transaction that is rolled back after the test."""
    with engine.connect() as conn:
        trans = conn.begin()
        sess = Session(bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False)
        try:
            yield sess
        finally:
            sess.close()
            trans.rollback()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def empty_pg_url() -> Iterator[str]:
    """An empty, un-migrated PostgreSQL database for one test."""
    with fresh_pg_database(f"actiondex_e{os.getpid()}") as url:
        yield url


@pytest.fixture(params=BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty, un-migrated database (per test), on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    return str(request.getfixturevalue("empty_pg_url"))

"""Shared fixtures: migrated databases (SQLite and a real PostgreSQL), one rollback per test.

The PostgreSQL leg uses ACTIONDEX_TEST_DATABASE_URL (default
postgresql://postgres@127.0.0.1:5432/test) only to create a fresh database of its own for the
run, so parallel runs never share state. If no PostgreSQL can be reached, the PG tests fail
loudly: `make test` starts the machine's server before pytest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, make_url
from sqlalchemy.orm import Session

from registry.db import make_engine, migrate
from registry.config import Settings

PG_URL = os.environ.get(
    "ACTIONDEX_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
BACKENDS = ["sqlite", "postgresql"]


def _pg_admin_dsn() -> str:
    return make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for this test session; dropped at the end."""
    name = f"actiondex_t{os.getpid()}"
    try:
        admin = psycopg.connect(_pg_admin_dsn(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {PG_URL} is unreachable ({exc}); run `make test`, "
                    "which starts it, or set ACTIONDEX_TEST_DATABASE_URL", pytrace=False)
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    url = make_url(PG_URL).set(drivername="postgresql+psycopg", database=name)
    yield url.render_as_string(hide_password=False)
    with psycopg.connect(_pg_admin_dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.db'}"


@pytest.fixture(scope="session", params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """A migrated engine per backend. Every test using it runs once on each database."""
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_database")
    else:
        url = request.getfixturevalue("sqlite_url")
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), database_url=url.replace(
        "postgresql+psycopg://", "postgresql://"))
    eng = make_engine(settings)
    migrate(eng)
    return eng


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session inside a transaction that is rolled back after the test."""
    with engine.connect() as conn:
        trans = conn.begin()
        sess = Session(bind=conn, join_transaction_mode="create_savepoint",
                       expire_on_commit=False)
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


@pytest.fixture(params=BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty, un-migrated database (per test), on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    name = f"actiondex_e{os.getpid()}"
    try:
        admin = psycopg.connect(_pg_admin_dsn(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {PG_URL} is unreachable ({exc})", pytrace=False)
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    yield make_url(PG_URL).set(drivername="postgresql+psycopg", database=name).render_as_string(
        hide_password=False)
    with psycopg.connect(_pg_admin_dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

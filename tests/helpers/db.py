"""Databases for tests: a fresh PostgreSQL database per use, an engine from a URL.

The PostgreSQL leg uses ACTIONDEX_TEST_DATABASE_URL (default
postgresql://postgres@127.0.0.1:5432/test) only to create databases of its own, so parallel
runs never share state. If no PostgreSQL can be reached, the test fails loudly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, make_url

from registry.config import Settings
from registry.db.engine import make_engine

PG_URL = os.environ.get(
    "ACTIONDEX_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
BACKENDS = ["sqlite", "postgresql"]


def _pg_admin_dsn() -> str:
    return make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def fresh_pg_database(name: str) -> Iterator[str]:
    """Create an empty PostgreSQL database for a test, drop it afterwards; yields its URL."""
    try:
        admin = psycopg.connect(_pg_admin_dsn(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {PG_URL} is unreachable ({exc}); run `make test`, "
                    "which starts it, or set ACTIONDEX_TEST_DATABASE_URL", pytrace=False)
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(PG_URL).set(drivername="postgresql", database=name).render_as_string(
            hide_password=False)
    finally:
        with psycopg.connect(_pg_admin_dsn(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def engine_for(url: str, data_dir: Path) -> Engine:
    return make_engine(Settings(data_dir=data_dir, database_url=url))

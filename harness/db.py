"""Databases for tests and benches: a fresh PostgreSQL database per use, an engine from a URL,
sites the registry knows and has never crawled.

The PostgreSQL leg uses ACTIONDEX_TEST_DATABASE_URL (default
postgresql://postgres@127.0.0.1:5432/test) only to create databases of its own, so parallel
runs never share state. If no PostgreSQL can be reached, it fails loudly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from sqlalchemy import Engine, make_url
from sqlalchemy.orm import Session

from registry.config import Settings
from registry.db.engine import make_engine
from registry.model.urls import site_key
from registry.store.rows import get_or_create_site, utcnow

PG_URL = os.environ.get("ACTIONDEX_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", "postgresql"]


def _pg_admin_dsn() -> str:
    return make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def fresh_pg_database(name: str) -> Iterator[str]:
    """Create an empty PostgreSQL database for a test, drop it afterwards; yields its URL."""
    try:
        admin = psycopg.connect(_pg_admin_dsn(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        raise RuntimeError(
            f"PostgreSQL at {PG_URL} is unreachable ({exc}); run `make test`, "
            "which starts it, or set ACTIONDEX_TEST_DATABASE_URL"
        ) from None
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield (
            make_url(PG_URL)
            .set(drivername="postgresql", database=name)
            .render_as_string(hide_password=False)
        )
    finally:
        with psycopg.connect(_pg_admin_dsn(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def engine_for(url: str, data_dir: Path) -> Engine:
    return make_engine(Settings(data_dir=data_dir, database_url=url))


def make_known(session: Session, origins: dict[str, str]) -> None:
    """Sites the registry knows and has never crawled (host -> origin), due now: as a
    submission or an operator would leave them. Each is keyed as the registry keys it
    (``site_key`` of its origin: ``host:port`` off the scheme's default port)."""
    now = utcnow()
    for host, origin in origins.items():
        site = get_or_create_site(session, site_key(origin) or host, origin, now)
        if hasattr(site, "next_crawl_at"):  # the recrawl schedule (registry.store.schedule)
            site.next_crawl_at = now

"""Engines, transactions and migrations. The edge (CLI, pipeline, API dependency) owns the
transaction; registry.store.promotion functions only flush."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session

from registry.config import Settings

# The database is away (down, restarting, connection killed), as opposed to a bug: callers
# keep their work (the crawler spools a site) or say so in one line.
DB_AWAY = (OperationalError, InterfaceError)
FIRST_LINE_MAX = 300


def first_line(exc: BaseException) -> str:
    """An exception as one short line for people and logs: a database error by the driver's
    own message (SQLAlchemy's wrapper adds the statement and a link), else its text."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return (text.splitlines() or [type(exc).__name__])[0][:FIRST_LINE_MAX]


# The execution option that marks an engine's transactions as read-only (see ``reading``).
READ_ONLY = "actiondex_read_only"

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def make_engine(settings: Settings) -> Engine:
    url = settings.db_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        # IMMEDIATE takes the write lock up front: a deferred transaction that read first
        # cannot upgrade to a write once another process has committed ("database is locked").
        # A reader (``reading``) begins deferred: it takes no lock, and WAL gives it one
        # snapshot for all its statements while a crawl writes.
        event.listen(
            engine,
            "begin",
            lambda conn: conn.exec_driver_sql(
                "BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE"
            ),
        )
        return engine
    return create_engine(url, pool_pre_ping=True)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # pysqlite's own transaction handling commits before DDL and breaks SAVEPOINT; take it over
    # (SQLAlchemy's documented recipe) so SQLite is as transactional as PostgreSQL: a failed
    # migration or promotion leaves nothing behind. WAL lets the API read while a crawl writes;
    # foreign keys are off by default in SQLite.
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any error."""
    with Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


@contextmanager
def reading(engine: Engine) -> Iterator[Session]:
    """A unit of work that only reads (the API's lookups): one consistent snapshot for all
    its statements (REPEATABLE READ on PostgreSQL: a site's actions and flows from the same
    promotion), rolled back at the end; on SQLite it waits for no writer."""
    options: dict[str, object] = {READ_ONLY: True}
    if engine.dialect.name == "postgresql":
        options["isolation_level"] = "REPEATABLE READ"
    with Session(engine.execution_options(**options)) as session:
        yield session  # closing it rolls its transaction back


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision``; the only way a schema is made."""
    command.upgrade(alembic_config(engine), revision)

"""procrastinate's own tables, applied by `actiondex migrate` on PostgreSQL (never on SQLite).

procrastinate ships its full schema and one SQL file per change (``<version>_<n>_<name>.sql``),
and leaves tracking which ones a database has to its user. We keep that in a comment on its
jobs table: the name of the newest migration file the schema corresponds to. A newer
procrastinate then gets the files after that one, in order, each in its own transaction.
"""

from __future__ import annotations

from pathlib import Path

from procrastinate.schema import SchemaManager
from sqlalchemy import Connection, Engine, text

MARK = "actiondex: procrastinate schema at "


def migration_files() -> list[Path]:
    return sorted(Path(SchemaManager.get_migrations_path()).glob("*.sql"))


def newest_migration() -> str:
    return migration_files()[-1].stem


def ensure_schema(engine: Engine) -> str:
    """Apply or upgrade the queue's schema; returns what was done, in a few words."""
    if engine.dialect.name != "postgresql":
        return "not applied (SQLite has no task queue)"
    with engine.connect() as conn:
        # One migrator at a time (two `migrate` containers starting together).
        conn.execute(text("SELECT pg_advisory_lock(hashtext('actiondex-procrastinate'))"))
        try:
            return _ensure(conn)
        finally:
            conn.rollback()
            conn.execute(text("SELECT pg_advisory_unlock(hashtext('actiondex-procrastinate'))"))
            conn.commit()


def _ensure(conn: Connection) -> str:
    if conn.scalar(text("SELECT to_regclass('procrastinate_jobs')")) is None:
        _run_sql(conn, SchemaManager.get_schema())
        _mark(conn, newest_migration())
        conn.commit()
        return f"applied ({newest_migration()})"
    at = _marked(conn)
    if at is None:
        return (
            "present, applied by someone else: left as it is (its version is unknown to actiondex)"
        )
    pending = [f for f in migration_files() if f.stem > at]
    # One transaction per file, marked as it commits: a value a file adds to an enum can only
    # be used once committed, and a failure leaves the files before it applied and recorded.
    for path in pending:
        _run_sql(conn, path.read_text(encoding="utf-8"))
        _mark(conn, path.stem)
        conn.commit()
    if pending:
        return f"upgraded from {at} to {pending[-1].stem} ({len(pending)} migrations)"
    return f"up to date ({at})"


def _run_sql(conn: Connection, sql: str) -> None:
    # Several statements and DO blocks: psycopg sends a query without parameters as is.
    conn.exec_driver_sql(sql.replace("%", "%%"))


def _mark(conn: Connection, stem: str) -> None:
    conn.exec_driver_sql(f"COMMENT ON TABLE procrastinate_jobs IS '{MARK}{stem}'")


def _marked(conn: Connection) -> str | None:
    comment = conn.scalar(text("SELECT obj_description('procrastinate_jobs'::regclass)"))
    if comment and comment.startswith(MARK):
        return str(comment.removeprefix(MARK))
    return None

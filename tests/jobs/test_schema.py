"""procrastinate's schema: applied by `actiondex migrate` on PostgreSQL, upgraded through its
own migration files, never on SQLite, and left out of our models' drift check."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from actiondex.jobs.schema import MARK, ensure_schema, migration_files, newest_migration
from harness.db import engine_for
from registry.db.engine import alembic_config, migrate
from tests.helpers.cli import run


def test_migrate_applies_it_once_on_postgresql(empty_pg_url: str, tmp_path: Path) -> None:
    first = run(tmp_path, "migrate", db_url=empty_pg_url)
    assert first.returncode == 0, first.stderr
    assert f"task queue schema: applied ({newest_migration()})" in first.stderr
    again = run(tmp_path, "migrate", db_url=empty_pg_url)
    assert f"task queue schema: up to date ({newest_migration()})" in again.stderr
    engine = engine_for(empty_pg_url, tmp_path)
    assert "procrastinate_jobs" in inspect(engine).get_table_names()
    command.check(alembic_config(engine))  # its tables are not taken for drift in ours
    engine.dispose()


def test_never_on_sqlite(tmp_path: Path) -> None:
    proc = run(tmp_path, "migrate")
    assert proc.returncode == 0 and "task queue" not in proc.stderr
    engine = engine_for(f"sqlite:///{tmp_path / 'actiondex.db'}", tmp_path)
    assert not any(t.startswith("procrastinate") for t in inspect(engine).get_table_names())
    assert ensure_schema(engine).startswith("not applied")


def test_an_old_schema_is_upgraded_through_its_migrations(
    empty_pg_url: str, tmp_path: Path
) -> None:
    """A database at procrastinate's first schema gets every later file, in order."""
    engine = engine_for(empty_pg_url, tmp_path)
    migrate(engine)
    initial = migration_files()[0]
    with engine.begin() as conn:
        conn.exec_driver_sql(initial.read_text().replace("%", "%%"))
        conn.exec_driver_sql(f"COMMENT ON TABLE procrastinate_jobs IS '{MARK}{initial.stem}'")
    said = ensure_schema(engine)
    assert said == (
        f"upgraded from {initial.stem} to {newest_migration()} "
        f"({len(migration_files()) - 1} migrations)"
    )
    with engine.connect() as conn:  # what 3.1 added (worker heartbeats) is there
        assert conn.scalar(text("SELECT to_regclass('procrastinate_workers')")) is not None
    assert ensure_schema(engine) == f"up to date ({newest_migration()})"
    engine.dispose()


def test_a_schema_someone_else_applied_is_left_alone(empty_pg_url: str, tmp_path: Path) -> None:
    engine = engine_for(empty_pg_url, tmp_path)
    ensure_schema(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("COMMENT ON TABLE procrastinate_jobs IS NULL")
    assert ensure_schema(engine).startswith("present, applied by someone else")
    engine.dispose()

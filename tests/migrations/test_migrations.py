"""Migrations are the only way a schema is made: check them like code, on both databases."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from alembic import command
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, inspect

from harness.db import engine_for
from registry.db.engine import MIGRATIONS, alembic_config, migrate

TABLES = {"sites", "documents", "actions", "flows", "crawl_runs", "alembic_version"}


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def test_single_head() -> None:
    script = ScriptDirectory.from_config(alembic_config(create_engine("sqlite://")))
    assert len(script.get_heads()) == 1


def test_every_revision_says_why() -> None:
    for path in (MIGRATIONS / "versions").glob("*.py"):
        assert "\nWhy: " in path.read_text(), f"{path.name} lacks its 'Why:' line"


def test_upgrade_downgrade_upgrade_without_drift(empty_db_url: str, tmp_path: Path) -> None:
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    migrate(engine)
    assert set(inspect(engine).get_table_names()) >= TABLES
    command.check(cfg)  # raises if the models and the migrated schema disagree
    command.downgrade(cfg, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    migrate(engine)
    command.check(cfg)
    engine.dispose()


def test_a_failing_migration_leaves_the_previous_revision(
    empty_db_url: str, tmp_path: Path
) -> None:
    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    head = ScriptDirectory(str(scripts)).get_current_head()
    (scripts / "versions" / "9999_broken.py").write_text(
        f'"""broken\n\nWhy: a test of a revision that fails halfway.\n"""\n'
        "from alembic import op\nimport sqlalchemy as sa\n"
        f"revision = '9999'\ndown_revision = {head!r}\nbranch_labels = None\n"
        "depends_on = None\n\n\ndef upgrade():\n"
        "    op.create_table('half_made', sa.Column('id', sa.Integer, primary_key=True))\n"
        "    op.execute('SELECT no_such_function()')\n\n\ndef downgrade():\n    pass\n"
    )
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    cfg.set_main_option("script_location", str(scripts))
    command.upgrade(cfg, head)
    with pytest.raises(Exception, match="no_such_function"):
        command.upgrade(cfg, "9999")
    assert current_revision(engine) == head
    assert "half_made" not in inspect(engine).get_table_names()
    engine.dispose()

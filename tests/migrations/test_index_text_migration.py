"""Migration 0012 (actions.about, sites.about) keeps every row both ways, on SQLite and
PostgreSQL: going back drops only the two columns (no copy of sites, whose drop would take
its documents and actions by cascade), and coming back gives NULL, read as "no about"."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from harness.db import engine_for
from registry.db.engine import alembic_config, migrate, transaction
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.promotion import promote_site

PLUGIN = (
    b'{"schema_version": "v1", "name_for_model": "meals", "name_for_human": "Meals",'
    b' "description_for_human": "Meal plans.", "description_for_model": "'
    + b"Plans dinners for the week. " * 20
    + b'zanzibarite"}'
)


def rows(conn, table: str) -> int:  # type: ignore[no-untyped-def]
    return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def columns(engine, table: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {c["name"] for c in inspect(engine).get_columns(table)}


def test_0012_adds_and_drops_only_its_columns(empty_db_url: str, tmp_path: Path) -> None:
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    migrate(engine)
    doc = RawDocument(url="https://meals.example/.well-known/ai-plugin.json", body=PLUGIN)
    with transaction(engine) as session:
        promote_site(
            session,
            normalise_site(
                SiteCrawl(host="meals.example", origin="https://meals.example", documents=[doc])
            ),
        )
    with engine.connect() as conn:
        about = conn.execute(text("SELECT about FROM sites")).scalar_one()
        assert about.endswith("zanzibarite")
        before = [rows(conn, t) for t in ("sites", "documents", "actions")]
        names = conn.execute(text("SELECT name, description FROM actions")).all()
    assert before == [1, 1, 1]
    command.downgrade(cfg, "0011")
    assert "about" not in columns(engine, "sites") | columns(engine, "actions")
    with engine.connect() as conn:
        assert [rows(conn, t) for t in ("sites", "documents", "actions")] == before
        assert conn.execute(text("SELECT name, description FROM actions")).all() == names
    command.upgrade(cfg, "head")
    command.check(cfg)  # the models and the migrated schema agree
    with engine.connect() as conn:
        assert conn.execute(text("SELECT about FROM sites")).scalar_one() is None
        assert conn.execute(text("SELECT about FROM actions")).scalar_one() is None
        assert [rows(conn, t) for t in ("sites", "documents", "actions")] == before
    engine.dispose()

"""Migration 0016 (issue 20) carries today's stores over, on SQLite and PostgreSQL: every
action gets ``verified``, true on the site's own host and on another host of the same
registrable domain, false elsewhere; going back drops only that column."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from harness.db import engine_for
from registry.db.engine import alembic_config, migrate

# name -> (endpoint, same_origin, verified after the upgrade)
ACTIONS = {
    "own": ("https://news.kites.co.uk/a", True, True),
    "sister": ("https://api.kites.co.uk/b", False, True),
    "stranger": ("https://tiles.elsewhere.test/c", False, False),
    "suffix": ("https://kites.org.uk/d", False, False),
}


def test_0016_verifies_what_the_stored_rows_already_show(empty_db_url: str, tmp_path: Path) -> None:
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    command.upgrade(cfg, "0015")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO sites (id, host, origin, version, created_at, crawl_failures) "
                "VALUES (1, 'news.kites.co.uk', 'https://news.kites.co.uk', 1, "
                "CURRENT_TIMESTAMP, 0)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO documents (id, site_id, url, status, fetched_at, "
                "normaliser_version, diagnostics, missing_count) VALUES (1, 1, "
                "'https://news.kites.co.uk/x.json', 200, CURRENT_TIMESTAMP, 6, '[]', 0)"
            )
        )
        for name, (endpoint, same, _) in ACTIONS.items():
            conn.execute(
                text(
                    "INSERT INTO actions (id, site_id, document_id, name, title, description, "
                    "effect, endpoint, input_schema, auth, same_origin) VALUES (:id, 1, 1, "
                    ":name, :name, '', 'read', :endpoint, '{}', 'none', :same)"
                ),
                {"id": name, "name": name, "endpoint": endpoint, "same": same},
            )
    migrate(engine)
    command.check(cfg)  # the models and the schema agree
    with engine.connect() as conn:
        got = dict(conn.execute(text("SELECT name, verified FROM actions")).all())
    assert {k: bool(v) for k, v in got.items()} == {n: v for n, (_, _, v) in ACTIONS.items()}
    command.downgrade(cfg, "0015")
    assert "verified" not in {c["name"] for c in inspect(engine).get_columns("actions")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM actions")).scalar_one() == len(ACTIONS)
    engine.dispose()

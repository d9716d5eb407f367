"""Migration 0017 (issue 20) re-keys stored sites off their scheme's default port as
``host:port``, on SQLite and PostgreSQL: the same rows, their documents and actions kept, and
the site found by ``/sites/host:port`` afterwards; going back strips the port again."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import text

from harness.db import engine_for
from registry.db.engine import alembic_config, migrate

# id -> (host stored before, origin, host after the upgrade)
SITES = {
    1: ("kites.test", "http://kites.test:18111", "kites.test:18111"),
    2: ("shop.example", "https://shop.example", "shop.example"),
    3: ("plain.example", "http://plain.example:80", "plain.example"),
    4: ("odd.example", "https://odd.example:80", "odd.example:80"),
}


def _rows(engine: object, sql: str) -> dict[object, object]:
    with engine.connect() as conn:  # type: ignore[attr-defined]
        return dict(conn.execute(text(sql)).all())


def test_0017_keys_sites_on_other_ports_by_host_and_port(empty_db_url: str, tmp_path: Path) -> None:
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    command.upgrade(cfg, "0016")
    with engine.begin() as conn:
        for ident, (host, origin, _) in SITES.items():
            conn.execute(
                text(
                    "INSERT INTO sites (id, host, origin, version, created_at, crawl_failures) "
                    "VALUES (:id, :host, :origin, 1, CURRENT_TIMESTAMP, 0)"
                ),
                {"id": ident, "host": host, "origin": origin},
            )
        conn.execute(
            text(
                "INSERT INTO documents (id, site_id, url, status, fetched_at, "
                "normaliser_version, diagnostics, missing_count) VALUES (1, 1, "
                "'http://kites.test:18111/x.json', 200, CURRENT_TIMESTAMP, 6, '[]', 0)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO actions (id, site_id, document_id, name, title, description, "
                "effect, endpoint, input_schema, auth, same_origin) VALUES ('a1', 1, 1, "
                "'fly', 'Fly', '', 'read', 'http://kites.test:18111/fly', '{}', 'none', :yes)"
            ),
            {"yes": True},
        )
        conn.execute(
            text(
                "INSERT INTO submissions (id, url, host, domain, status, errors, actions, "
                "attempts, created_at) VALUES ('s1', 'http://kites.test:18111/', 'kites.test', "
                "'kites.test', 'queued', '[]', '[]', 0, CURRENT_TIMESTAMP)"
            )
        )
    migrate(engine)
    command.check(cfg)
    assert _rows(engine, "SELECT id, host FROM sites") == {i: s[2] for i, s in SITES.items()}
    assert _rows(engine, "SELECT id, site_id FROM actions") == {"a1": 1}  # nothing lost
    assert _rows(engine, "SELECT id, host FROM submissions") == {"s1": "kites.test:18111"}
    command.downgrade(cfg, "0016")
    assert _rows(engine, "SELECT id, host FROM sites") == {i: s[0] for i, s in SITES.items()}
    assert _rows(engine, "SELECT id, host FROM submissions") == {"s1": "kites.test"}
    engine.dispose()

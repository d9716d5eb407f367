"""Migration 0013 trims the submission URLs stored before issue 25 item 8 to their site's
homepage, on SQLite and PostgreSQL: no path, query or fragment (a token) stays behind."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import text

from harness.db import engine_for
from registry.db.engine import alembic_config, migrate

STORED = {
    "a" * 24: ("https://vault.example/admin/reset?token=s3cret#step", "https://vault.example/"),
    "b" * 24: ("http://Shop.example:8080/a/b?c=d", "http://shop.example:8080/"),
    "c" * 24: ("https://[2001:db8::1]:8443/x#y", "https://[2001:db8::1]:8443/"),
    "d" * 24: ("https://plain.example/", "https://plain.example/"),
}


def test_0013_keeps_only_the_homepage_of_stored_submissions(
    empty_db_url: str, tmp_path: Path
) -> None:
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    command.upgrade(cfg, "0012")
    with engine.begin() as conn:
        for n, (ident, (url, _)) in enumerate(STORED.items()):
            conn.execute(
                text(
                    "INSERT INTO submissions (id, url, host, domain, status, errors, actions, "
                    "attempts, created_at) VALUES (:id, :url, :host, :host, :status, '[]', '[]', "
                    "0, CURRENT_TIMESTAMP)"
                ),
                {
                    "id": ident,
                    "url": url,
                    "host": f"h{n}.example",
                    "status": "queued" if n % 2 else "done",
                },
            )
    migrate(engine)
    command.check(cfg)  # no table changes: the models and the schema still agree
    with engine.connect() as conn:
        got = dict(conn.execute(text("SELECT id, url FROM submissions")).all())
    assert got == {ident: trimmed for ident, (_, trimmed) in STORED.items()}
    command.downgrade(cfg, "0012")  # nothing to undo, and nothing is lost going back
    with engine.connect() as conn:
        assert dict(conn.execute(text("SELECT id, url FROM submissions")).all()) == got
    engine.dispose()

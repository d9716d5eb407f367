"""Migration 0011 (the change watermark) keeps every row both ways, on SQLite and PostgreSQL:
existing sites are numbered (by id) and the clock starts above them; going back drops only
the column and the clock."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import text

from harness.db import engine_for
from harness.freshness import promote
from registry.db.engine import alembic_config, migrate


def count(conn, table: str) -> int:  # type: ignore[no-untyped-def]
    return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def test_0011_numbers_existing_sites_and_loses_nothing_either_way(
    empty_db_url: str, tmp_path: Path
) -> None:
    engine = engine_for(empty_db_url, tmp_path)
    cfg = alembic_config(engine)
    migrate(engine)
    for n in range(3):
        promote(engine, f"s{n}.example", f"word{n}")
    command.downgrade(cfg, "0007")
    with engine.connect() as conn:
        assert (count(conn, "sites"), count(conn, "actions")) == (3, 3)  # no cascade
    command.upgrade(cfg, "head")  # through 0011; promote() below writes today's tables
    with engine.connect() as conn:
        seqs = conn.execute(text("SELECT id, change_seq FROM sites ORDER BY id")).all()
        assert all(site_id == seq for site_id, seq in seqs)
        clock = conn.execute(text("SELECT seq FROM store_clock")).scalar_one()
        assert clock == max(site_id for site_id, _ in seqs)
        assert count(conn, "documents") == 3 and count(conn, "actions") == 3
    promote(engine, "s0.example", "again")  # the next change is numbered above them all
    with engine.connect() as conn:
        assert (
            conn.execute(
                text("SELECT change_seq FROM sites WHERE host = 's0.example'")
            ).scalar_one()
            == clock + 1
        )
    engine.dispose()

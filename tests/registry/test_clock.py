"""The store clock numbers changes in commit order (registry.db.clock), so a poller reading
``change_seq > watermark`` never skips one. Two real PostgreSQL transactions on a fresh
database (committed rows: not the rolled-back ``session`` fixture); SQLite orders writers
with its database-wide lock, and the index tests run the watermark on both."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from harness.db import engine_for
from registry.db.clock import last_change
from registry.db.engine import migrate, reading, transaction
from registry.db.tables import Site
from registry.index.changes import read_changes
from registry.store.rows import get_or_create_site, mark_changed, utcnow

WAIT_S = 10


@pytest.fixture
def pg(empty_pg_url: str, tmp_path: Path) -> Iterator[Engine]:
    engine = engine_for(empty_pg_url, tmp_path)
    migrate(engine)
    yield engine
    engine.dispose()


def sites(engine: Engine, *hosts: str) -> list[int]:
    with transaction(engine) as session:
        return [get_or_create_site(session, h, f"https://{h}", utcnow()).id for h in hosts]


def changed(engine: Engine, after: int) -> dict[str, int]:
    """What a poller reading from ``after`` sees: host -> change number."""
    with reading(engine) as session:
        seen = read_changes(session, after).sites
        return {h: session.query(Site).filter_by(host=h).one().change_seq for h in seen}


def test_a_later_number_cannot_commit_before_an_earlier_one(pg: Engine) -> None:
    a_id, b_id = sites(pg, "a.example", "b.example")
    with reading(pg) as session:
        start = last_change(session)
    first = Session(pg)
    first.begin()
    mark_changed(first, first.get_one(Site, a_id), utcnow())
    first.flush()
    numbered, release, seq = threading.Event(), threading.Event(), {}

    def second() -> None:  # another crawler promoting another site at the same time
        with transaction(pg) as session:
            site = session.get_one(Site, b_id)
            mark_changed(session, site, utcnow())
            session.flush()
            seq["b"] = site.change_seq
            numbered.set()
            release.wait(WAIT_S)  # numbered, not yet committed

    thread = threading.Thread(target=second)
    thread.start()
    try:
        # The second waits at its numbering while the first holds the clock: it can neither
        # take a later number nor commit one before the first's.
        assert not numbered.wait(0.5)
        assert changed(pg, start) == {}
        first.commit()
        assert numbered.wait(WAIT_S)
        seen = changed(pg, start)  # a poll between the first's commit and the second's
        assert seen == {"a.example": start + 1} and seq["b"] == start + 2
    finally:
        first.close()  # rolls back if the test failed before the commit
        release.set()
        thread.join(WAIT_S)
    assert changed(pg, max(seen.values())) == {"b.example": start + 2}  # not skipped


def test_a_plain_sequence_would_skip_a_change(pg: Engine) -> None:
    """Why the clock is a locked row: numbers from a sequence are taken at one time and
    committed at another, and a poller that moved past a later one misses the earlier."""
    with pg.begin() as conn:
        conn.execute(text("CREATE SEQUENCE naive_seq"))
        conn.execute(text("CREATE TABLE naive (seq bigint)"))
    early, late = pg.connect(), pg.connect()
    early.begin()
    late.begin()
    early.execute(text("INSERT INTO naive VALUES (nextval('naive_seq'))"))  # takes 1
    late.execute(text("INSERT INTO naive VALUES (nextval('naive_seq'))"))  # takes 2
    late.commit()
    with pg.connect() as poller:
        mark = poller.execute(text("SELECT max(seq) FROM naive")).scalar_one()
    early.commit()
    with pg.connect() as poller:
        after = poller.execute(text("SELECT seq FROM naive WHERE seq > :m"), {"m": mark}).all()
    assert (mark, after) == (2, [])  # 1 committed after the poller read 2: never seen
    early.close()
    late.close()

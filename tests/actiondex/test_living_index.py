"""A running `actiondex serve` follows the store (issue 12, "a living index"): what is stored
after it started is searchable within seconds, with no restart and no rebuild; replicas on
one PostgreSQL each keep their own index and all catch up; while updates fail, the last good
index keeps answering. The store is changed from this process, as a crawl worker elsewhere
would change it; the servers are real `actiondex serve` processes (tests.helpers.live)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import psycopg
import pytest
import tantivy
from sqlalchemy import Engine, make_url, text

from harness.db import BACKENDS, PG_URL
from harness.freshness import finds, promote, wait_found
from harness.procs import serving
from registry.config import Settings
from registry.db.engine import make_engine, migrate
from tests.helpers.cli import run

GOAL_S = 5.0  # the bound on the store -> searchable lag (its p50 goal is 2 s)
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, data_dir: Path) -> Iterator[tuple[Engine, str]]:
    """A migrated store and the database URL a server is given ("" = the data dir's SQLite)."""
    url = "" if request.param == "sqlite" else str(request.getfixturevalue("empty_pg_url"))
    engine = make_engine(Settings(data_dir=data_dir, database_url=url))
    migrate(engine)
    yield engine, url
    engine.dispose()


def test_what_is_stored_after_serve_started_is_found_within_seconds(
    store: tuple[Engine, str], data_dir: Path
) -> None:
    engine, url = store
    promote(engine, "before.example", "abacus")
    with serving(data_dir, ACTIONDEX_DATABASE_URL=url) as base:
        assert finds(base, "abacus")
        lags = []
        for n, word in enumerate(["zeppelin", "quokka", "marimba"]):
            assert not finds(base, word)
            promote(engine, f"after{n}.example", word)
            lags.append(wait_found(base, word, seconds=GOAL_S))
        promote(engine, "after0.example", "theremin")  # a changed site: its old action goes
        wait_found(base, "theremin", seconds=GOAL_S)
        assert not finds(base, "zeppelin") and finds(base, "quokka")
    assert max(lags) < GOAL_S


def test_replicas_on_one_postgresql_keep_their_own_index_and_catch_up(
    empty_pg_url: str, tmp_path: Path
) -> None:
    dirs = [tmp_path / "a", tmp_path / "b"]
    engine = make_engine(Settings(data_dir=tmp_path, database_url=empty_pg_url))
    migrate(engine)
    promote(engine, "first.example", "abacus")
    for folder in dirs:
        folder.mkdir()
    with ExitStack() as stack:
        bases = [stack.enter_context(serving(d, ACTIONDEX_DATABASE_URL=empty_pg_url)) for d in dirs]
        for n, word in enumerate(["narwhal", "ocarina"]):
            promote(engine, f"new{n}.example", word)
        for base in bases:
            assert finds(base, "abacus")
            for word in ("narwhal", "ocarina"):
                assert wait_found(base, word, seconds=GOAL_S) < GOAL_S
    assert all((d / "index" / "current").is_symlink() for d in dirs)  # no shared disk
    engine.dispose()


def test_a_failing_update_leaves_the_last_good_index_serving(
    store: tuple[Engine, str], data_dir: Path
) -> None:
    engine, url = store
    promote(engine, "kept.example", "abacus")
    with serving(data_dir, ACTIONDEX_DATABASE_URL=url) as base:
        # Another writer holds the index's lock: every sync of the server fails (IndexBusy).
        holder = tantivy.Index.open(str(data_dir / "index" / "current")).writer(15_000_000, 1)
        promote(engine, "blocked.example", "bassoon")
        time.sleep(3)  # three polls, each failing
        assert finds(base, "abacus") and not finds(base, "bassoon")
        holder.wait_merging_threads()  # released: the next poll catches up
        assert wait_found(base, "bassoon", seconds=GOAL_S) < GOAL_S
    log = next(data_dir.glob("serve-*.log")).read_text()
    assert log.count("index sync failed") == 1, log  # one line, not one per poll
    assert "index sync works again" in log


def _admin(sql: str) -> None:
    dsn = make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as admin:
        admin.execute(sql)


def test_while_the_store_is_away_the_index_keeps_answering(
    empty_pg_url: str, data_dir: Path
) -> None:
    name = make_url(empty_pg_url).database
    engine = make_engine(Settings(data_dir=data_dir, database_url=empty_pg_url))
    migrate(engine)
    promote(engine, "kept.example", "abacus")
    with serving(data_dir, ACTIONDEX_DATABASE_URL=empty_pg_url) as base:
        engine.dispose()
        _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            _admin(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
            )
            time.sleep(3)
            assert finds(base, "abacus")  # every poll fails; /find answers from the index
        finally:
            _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        promote(engine, "back.example", "cello")
        assert wait_found(base, "cello", seconds=GOAL_S) < GOAL_S
    engine.dispose()
    log = next(data_dir.glob("serve-*.log")).read_text()
    assert "index sync failed" in log and "index sync works again" in log, log


def test_actiondex_index_by_hand_drops_a_site_deleted_from_the_store(data_dir: Path) -> None:
    engine = make_engine(Settings(data_dir=data_dir))
    migrate(engine)
    promote(engine, "kept.example", "abacus")
    promote(engine, "deleted.example", "bassoon")
    assert run(data_dir, "index").returncode == 0
    with engine.begin() as conn:  # by hand: nothing in actiondex deletes a site row
        conn.execute(text("DELETE FROM sites WHERE host = 'deleted.example'"))
    engine.dispose()
    proc = run(data_dir, "index")
    assert proc.returncode == 0 and "0 sites (re)indexed, 1 removed" in proc.stderr, proc.stderr
    assert "deleted.example" not in run(data_dir, "find", "bassoon").stdout

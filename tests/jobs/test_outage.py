"""Workers and the scheduler wait out a database outage (issue 25.3), the fast part: the
backoff, one log line per state change, which errors count as the database being away, the
queue's connector across a cut connection to a real PostgreSQL (tests.hostile.dbproxy), a
worker pruned during an outage registering again, and the scheduler not judging heartbeats
right after one. The whole processes across a stopped server: tests/distributed/test_outage.py."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from procrastinate.exceptions import ConnectorException
from sqlalchemy import Engine, make_url, text
from sqlalchemy.exc import IntegrityError

from actiondex.jobs.app import POOL_WAIT, make_app
from actiondex.jobs.outage import OUTAGE, Outage, backoff, unreachable, wait_out
from actiondex.jobs.periodic import heartbeat_grace, retry_stalled_jobs
from actiondex.jobs.tasks import enqueue
from harness.db import PG_URL
from registry.config import Settings
from registry.db.engine import make_engine
from tests.hostile.dbproxy import CuttableProxy


@pytest.fixture(autouse=True)
def fresh_outage() -> Iterator[None]:
    """The process's one Outage, as it was: a test's outage must not hold the scheduler's
    judgement back in the tests after it."""
    saved = OUTAGE.down_since, OUTAGE.back_at
    yield
    OUTAGE.down_since, OUTAGE.back_at = saved


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_backoff_doubles_from_one_second_to_thirty_at_most() -> None:
    delays = backoff()
    assert [next(delays) for _ in range(8)] == [1, 2, 4, 8, 16, 30, 30, 30]


def test_one_line_when_the_database_goes_and_one_when_it_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    outage = Outage(logging.getLogger("test.outage"), clock)
    with caplog.at_level(logging.INFO, "test.outage"):
        outage.reached()  # up and up: nothing to say
        for _ in range(5):  # five waiters find it away
            outage.failed(OSError("connection refused"))
            clock.now += 10
        assert not outage.settled(0)
        outage.reached()
        outage.reached()
    assert [r.getMessage() for r in caplog.records] == [
        "database unreachable, waiting (connection refused)",
        "database back after 50 s",
    ]
    assert not outage.settled(30)
    clock.now += 30
    assert outage.settled(30)
    assert Outage().settled(1e9)  # never away


def _refused() -> psycopg.OperationalError:
    try:
        psycopg.connect("postgresql://nobody@127.0.0.1:9/none", connect_timeout=2)
    except psycopg.OperationalError as exc:
        return exc
    raise AssertionError("port 9 answered")


def _killed_by_the_server() -> psycopg.OperationalError:
    """A session the server ended (pg_terminate_backend: admin shutdown, 57P01)."""
    dsn = make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    with (
        psycopg.connect(dsn, autocommit=True) as victim,
        psycopg.connect(dsn, autocommit=True) as killer,
    ):
        pid = victim.info.backend_pid
        killer.execute("SELECT pg_terminate_backend(%s)", [pid])
        try:
            victim.execute("SELECT 1")
        except psycopg.OperationalError as exc:
            return exc
    raise AssertionError("the terminated session answered")


def test_only_a_database_that_cannot_be_reached_counts_as_away(
    empty_pg_url: str, tmp_path: Path
) -> None:
    refused, killed = _refused(), _killed_by_the_server()
    assert unreachable(refused) and unreachable(killed)
    try:  # as procrastinate and SQLAlchemy wrap them
        raise ConnectorException from killed
    except ConnectorException as wrapped:
        assert unreachable(wrapped)
    engine = make_engine(Settings(data_dir=tmp_path, database_url=empty_pg_url))
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (id int PRIMARY KEY)"))
        conn.execute(text("INSERT INTO t VALUES (1)"))
    with pytest.raises(IntegrityError) as duplicate, engine.begin() as conn:
        conn.execute(text("INSERT INTO t VALUES (1)"))
    engine.dispose()
    assert not unreachable(duplicate.value)  # a statement that failed: raised, not waited
    assert not unreachable(ValueError("x"))


def test_the_queue_waits_out_a_cut_connection(
    queue: tuple[Settings, Engine], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: procrastinate raised (and the worker stopped) at the first query of an outage."""
    settings, _ = queue
    url = make_url(settings.database_url or "")
    with CuttableProxy((url.host or "127.0.0.1", url.port or 5432)) as proxy:
        via = url.set(port=proxy.port).render_as_string(hide_password=False)

        async def go() -> bool:
            app = make_app(Settings(database_url=via, data_dir=tmp_path))
            async with app.open_async():
                assert await enqueue(app, "a.test", 0)  # a pooled connection, now cut
                proxy.cut()
                threading.Timer(POOL_WAIT + 3, proxy.restore).start()
                return await enqueue(app, "b.test", 0)

        with caplog.at_level(logging.INFO, "actiondex.jobs"):
            assert asyncio.run(go())
    said = [r.getMessage() for r in caplog.records if r.name == "actiondex.jobs"]
    assert len(said) == 2, said
    assert said[0].startswith("database unreachable, waiting (")
    assert said[1].startswith("database back after ")


def test_wait_out_raises_what_is_not_an_outage() -> None:
    async def broken() -> None:
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        asyncio.run(wait_out(broken, Outage()))


def _jobs(engine: Engine) -> list[tuple[str, str, int | None]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text(  # type: ignore[misc]
                    "SELECT args->>'host', status, worker_id FROM procrastinate_jobs ORDER BY id"
                )
            )
        ]


def test_a_worker_pruned_during_an_outage_registers_again(
    queue: tuple[Settings, Engine], caplog: pytest.LogCaptureFixture
) -> None:
    """Before: a foreign-key error at the next job fetch (the worker's row was pruned by a
    worker starting elsewhere), and the worker stopped."""
    settings, engine = queue

    async def go() -> tuple[int, int, int]:
        app = make_app(settings)
        async with app.open_async():
            manager = app.job_manager
            first = await manager.register_worker()
            for host in ("a.test", "b.test"):
                await enqueue(app, host, 0)
            running = await manager.fetch_job(["crawl"], first)
            assert running is not None
            await manager.prune_stalled_workers(0)  # as a starting worker does after an outage
            nxt = await manager.fetch_job(["crawl"], first)  # the foreign key fails here
            assert nxt is not None
            again = manager.current[first]
            await manager.prune_stalled_workers(0)
            await manager.update_heartbeat(first)  # no row to beat: registered again
            third = manager.current[first]
            stalled = await manager.get_stalled_jobs(seconds_since_heartbeat=60)
            assert list(stalled) == []  # its running jobs are its own again, not orphans
            await manager.unregister_worker(first)
            return first, again, third

    with caplog.at_level(logging.INFO, "actiondex.jobs"):
        first, again, third = asyncio.run(go())
    assert len({first, again, third}) == 3
    assert _jobs(engine) == [("a.test", "doing", None), ("b.test", "doing", None)]  # unregistered
    assert sum("registered again" in r.getMessage() for r in caplog.records) == 2


def test_the_scheduler_does_not_judge_heartbeats_right_after_an_outage(
    queue: tuple[Settings, Engine],
) -> None:
    """A worker's heartbeat stopped with the database; its job is not retried until the
    grace has passed (a worker silent that long after is dead)."""
    settings, engine = queue

    async def stalled_job() -> None:
        app = make_app(settings)
        async with app.open_async():
            worker = await app.job_manager.register_worker()
            await enqueue(app, "a.test", 0)
            await app.job_manager.fetch_job(["crawl"], worker)

    asyncio.run(stalled_job())
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour'")
        )

    async def tick() -> dict[str, int]:
        app = make_app(settings)
        async with app.open_async():
            return await retry_stalled_jobs(app, engine, settings)

    OUTAGE.down_since, OUTAGE.back_at = None, OUTAGE.clock()  # just back
    assert asyncio.run(tick())["after_outage"] == 1
    assert [s for _, s, _ in _jobs(engine)] == ["doing"]
    OUTAGE.back_at = OUTAGE.clock() - heartbeat_grace(settings.stalled_after)  # long ago
    assert asyncio.run(tick())["retried"] == 1
    assert [s for _, s, _ in _jobs(engine)] == ["todo"]

"""The queue on PostgreSQL: one queued crawl per site (queueing lock), the per-host lock,
the stalled-job retry of the scheduler, and the commands refusing what they cannot run on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from actiondex.jobs.app import make_app
from actiondex.jobs.checks import crawl_delay
from actiondex.jobs.periodic import cron_every, enqueue_due_sites, retry_stalled_jobs
from actiondex.jobs.tasks import enqueue, host_lock
from harness.db import engine_for, make_known
from registry.config import Settings
from registry.db.engine import migrate, transaction
from tests.helpers.cli import one_line_error, run


def jobs(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text(
                    "SELECT args->>'host', status, lock, queueing_lock, priority"
                    " FROM procrastinate_jobs WHERE task_name = 'actiondex.crawl_site' ORDER BY id"
                )
            )
        ]


def test_one_queued_job_per_site_with_its_host_lock(queue: tuple[Settings, Engine]) -> None:
    settings, engine = queue

    async def go() -> list[bool]:
        app = make_app(settings)
        async with app.open_async():
            return [
                await enqueue(app, "a.test", 10),
                await enqueue(app, "a.test", 0),
                await enqueue(app, "b.test", 0),
            ]

    assert asyncio.run(go()) == [True, False, True]
    assert jobs(engine) == [
        ("a.test", "todo", "crawl:a.test", "crawl:a.test", 10),
        ("b.test", "todo", "crawl:b.test", "crawl:b.test", 0),
    ]


def _stall(engine: Engine, host: str) -> None:
    """The job of ``host`` taken by a worker that then went silent an hour ago."""
    with engine.begin() as conn:
        worker = conn.scalar(text("SELECT worker_id FROM procrastinate_register_worker_v1()"))
        conn.execute(text("SELECT procrastinate_fetch_job_v2(ARRAY['crawl'], :w)"), {"w": worker})
        conn.execute(
            text(
                "UPDATE procrastinate_workers SET last_heartbeat = now() - "
                "interval '1 hour' WHERE id = :w"
            ),
            {"w": worker},
        )


def test_a_dead_workers_job_goes_back_to_the_queue(queue: tuple[Settings, Engine]) -> None:
    settings, engine = queue

    async def go(stall_first: bool) -> dict[str, int]:
        app = make_app(settings)
        async with app.open_async():
            await enqueue(app, "a.test", 0)
            _stall(engine, "a.test")
            assert jobs(engine)[0][1] == "doing"
            if not stall_first:  # the scheduler queued the site again meanwhile
                assert await enqueue(app, "a.test", 0)
            return await retry_stalled_jobs(app, engine, settings)

    said = asyncio.run(go(stall_first=True))
    assert (said["stalled"], said["retried"]) == (1, 1)
    assert [status for _, status, *_ in jobs(engine)] == ["todo"]


def test_a_stalled_job_with_another_queued_ends_failed(queue: tuple[Settings, Engine]) -> None:
    settings, engine = queue

    async def go() -> dict[str, int]:
        app = make_app(settings)
        async with app.open_async():
            await enqueue(app, "a.test", 0)
            _stall(engine, "a.test")
            assert await enqueue(app, "a.test", 0)  # queued again while "running"
            return await retry_stalled_jobs(app, engine, settings)

    said = asyncio.run(go())
    assert (said["stalled"], said["retried"]) == (1, 0)
    assert [status for _, status, *_ in jobs(engine)] == ["failed", "todo"]


def test_a_site_being_crawled_is_not_queued_again(queue: tuple[Settings, Engine]) -> None:
    """Before: each tick of the scheduler queued a site again while its job ran (the
    queueing lock covers waiting jobs only); that job waited for the host's lock, then found
    the site crawled and skipped it."""
    settings, engine = queue
    with transaction(engine) as session:
        make_known(session, {"a.test": "http://a.test", "b.test": "http://b.test"})

    async def go() -> dict[str, int]:
        app = make_app(settings)
        async with app.open_async():
            await enqueue(app, "a.test", 0)
            _stall(engine, "a.test")  # taken by a worker: "doing"
            return await enqueue_due_sites(app, engine, settings)

    assert asyncio.run(go()) == {"due": 2, "enqueued": 1, "crawling": 1}
    assert [(host, status) for host, status, *_ in jobs(engine)] == [
        ("a.test", "doing"),
        ("b.test", "todo"),
    ]


def test_crawl_delay_from_the_remembered_robots() -> None:
    state = {"robots": {"status": 200, "body": "User-agent: *\nCrawl-delay: 2.5\n", "at": 1}}
    assert crawl_delay(state, "actiondex/0.1") == 2.5
    state["robots"]["body"] = "User-agent: *\nCrawl-delay: 300\n"
    assert crawl_delay(state, "actiondex/0.1") == 30.0  # the crawler's cap
    assert crawl_delay({"robots": {"status": 404, "body": "", "at": 1}}, "x") is None
    assert crawl_delay(None, "x") is None
    assert host_lock("a.test") == "crawl:a.test"


def test_cron_lines_for_intervals() -> None:
    assert cron_every(2) == "* * * * * */2"
    assert cron_every(300) == "*/5 * * * *"
    assert cron_every(3600) == "0 * * * *"


@pytest.mark.parametrize("command", ["worker", "schedule"])
def test_sqlite_is_refused_in_one_line(command: str, tmp_path: Path) -> None:
    proc = run(tmp_path, command)
    assert proc.returncode == 2
    assert "needs PostgreSQL" in one_line_error(proc)


def test_a_database_without_the_queue_is_refused(empty_pg_url: str, tmp_path: Path) -> None:
    engine = engine_for(empty_pg_url, tmp_path)
    migrate(engine)  # our tables, but not procrastinate's
    engine.dispose()
    proc = run(tmp_path, "worker", db_url=empty_pg_url)
    assert proc.returncode == 2
    assert "run `actiondex migrate` first" in one_line_error(proc)


def test_a_tick_defers_only_the_sites_not_queued_in_one_statement(
    queue: tuple[Settings, Engine],
) -> None:
    """Before: each tick deferred every due site one statement each, and each site queued
    already (all of them, between a tick and the crawl) failed on its queueing lock: 300
    due sites over a 20-second recrawl cost thousands of refused inserts."""
    settings, engine = queue
    hosts = {f"{n}.test": f"http://{n}.test" for n in "abcd"}
    with transaction(engine) as session:
        make_known(session, hosts)
    offered: list[list[str]] = []

    async def go() -> dict[str, int]:
        app = make_app(settings)
        defer = app.job_manager.batch_defer_jobs_async

        async def counting(jobs: list[Any], connection: Any = None) -> Any:
            offered.append([str(job.task_kwargs["host"]) for job in jobs])
            return await defer(jobs, connection)

        async with app.open_async():
            await enqueue(app, "a.test", 0)
            _stall(engine, "a.test")  # taken by a worker: "doing"
            await enqueue(app, "b.test", 0)  # waiting
            app.job_manager.batch_defer_jobs_async = counting  # type: ignore[method-assign]
            return await enqueue_due_sites(app, engine, settings)

    assert asyncio.run(go()) == {"due": 4, "enqueued": 2, "crawling": 1}
    assert offered == [["c.test", "d.test"]]
    assert sorted((host, status) for host, status, *_ in jobs(engine)) == [
        ("a.test", "doing"),
        ("b.test", "todo"),
        ("c.test", "todo"),
        ("d.test", "todo"),
    ]

"""A worker's retry of a failed crawl and the job the scheduler queued for the same host
meanwhile: one of them must go, quietly. Before: procrastinate's retry (the job back to
``todo``) broke the queueing lock's unique index, the worker logged "Task exception was never
retrieved" with a UniqueViolation traceback, and the job stayed ``doing`` for good."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from sqlalchemy import Engine, text

from actiondex.jobs.app import make_app
from actiondex.jobs.tasks import enqueue
from harness.db import make_known
from harness.procs import env_for
from harness.web import LoopbackWeb, Reply, Site
from registry.config import Settings
from registry.db.engine import transaction
from tests.distributed.cluster import started, wait_until


def statuses(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(
            conn.scalars(
                text(
                    "SELECT status::text FROM procrastinate_jobs"
                    " WHERE task_name = 'actiondex.crawl_site' ORDER BY id"
                )
            )
        )


def test_a_retry_gives_way_to_the_job_queued_for_its_host(
    queue: tuple[Settings, Engine], tmp_path: Path
) -> None:
    settings, engine = queue
    # Every request hangs: the crawl child outlives its job timeout, and the job fails with
    # ChildFailed, which procrastinate retries.
    web = LoopbackWeb({"a.test": Site(fallback=Reply(delay=60))})
    env = env_for(
        tmp_path,
        settings.database_url,
        ACTIONDEX_RESOLVE=",".join(web.resolve_args()),
        ACTIONDEX_JOB_TIMEOUT="1",
        ACTIONDEX_HEARTBEAT_INTERVAL="1",
    )

    key = f"a.test:{web.port}"  # the site's key: the loopback web is not on port 80

    async def defer() -> bool:
        async with make_app(settings).open_async() as app:
            return await enqueue(app, key, 0)

    log = tmp_path / "worker.log"
    with web:
        with transaction(engine) as session:
            make_known(session, {"a.test": f"http://a.test:{web.port}"})
        assert asyncio.run(defer())
        with started("worker", env, log) as worker:
            wait_until(lambda: statuses(engine) == ["doing"], 60, "the job taken", worker)
            assert asyncio.run(defer())  # the scheduler queues the host again meanwhile
            wait_until(lambda: statuses(engine)[0] != "doing", 40, "the first job ended", worker)
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=60) == 0
    said = log.read_text(errors="replace")
    assert statuses(engine)[0] == "failed", said
    assert "Traceback" not in said and "never retrieved" not in said, said
    assert f"({key}): another is queued; ended as failed" in said, said

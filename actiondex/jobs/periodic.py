"""What `actiondex schedule` runs, as procrastinate periodic tasks on the ``schedule`` queue:

- enqueue_due: due sites (pending submissions first, at a higher priority) become crawl jobs,
  at most one queued per site;
- retry_stalled: jobs of workers whose heartbeat stopped (killed, machine gone) go back to the
  queue, as procrastinate does not retry them by itself; then crawl runs left ``running`` by
  their dead children are marked aborted, and what those runs had taken goes back to the
  queue. Not within heartbeat_grace of a database outage: heartbeats stopped with it;
- probe_due: the liveness probes that are due (actiondex/jobs/probing.py).

Any number of schedulers may run: procrastinate defers each periodic tick once, and the
queueing locks keep one of each task waiting.
"""

from __future__ import annotations

import logging
from typing import Any

from procrastinate import App
from procrastinate.exceptions import ConnectorException
from procrastinate.jobs import Job
from sqlalchemy import Engine

from actiondex.jobs import hooks
from actiondex.jobs.app import SCHEDULE_QUEUE
from actiondex.jobs.outage import BACKOFF_CAP, OUTAGE, wait_out_sync
from actiondex.jobs.probing import probe_due_endpoints
from actiondex.jobs.resilient import ReregisteringJobManager
from actiondex.jobs.tasks import CRAWL_TASK, enqueue_many
from actiondex.output import plural
from registry.config import Settings
from registry.db.engine import make_engine, transaction
from registry.store.rows import utcnow

log = logging.getLogger("actiondex.jobs")
ANALYZE_AFTER = 100  # jobs queued in one tick past which the queue's table is analysed
QUEUED = (
    "SELECT args->>'host' AS host, status FROM procrastinate_jobs "
    "WHERE task_name = %(task)s AND status IN ('todo', 'doing')"
)


def cron_every(seconds: int) -> str:
    """A procrastinate cron line (6th field: seconds) for "every ``seconds``"; below a minute
    and above it, the interval should divide 60 (or 3600) to be even."""
    if seconds < 60:
        return f"* * * * * */{seconds}"
    if seconds < 3600:
        return f"*/{seconds // 60} * * * *"
    return "0 * * * *"


def register_periodic(app: App, settings: Settings) -> None:
    engine = make_engine(settings)

    @app.periodic(cron=cron_every(settings.schedule_interval), periodic_id="enqueue")
    @app.task(name="actiondex.enqueue_due", queue=SCHEDULE_QUEUE, queueing_lock="enqueue_due")
    async def enqueue_due(timestamp: int) -> dict[str, int]:
        return await enqueue_due_sites(app, engine, settings)

    @app.periodic(cron=cron_every(settings.stalled_interval), periodic_id="stalled")
    @app.task(name="actiondex.retry_stalled", queue=SCHEDULE_QUEUE, queueing_lock="retry_stalled")
    async def retry_stalled(timestamp: int) -> dict[str, int]:
        return await retry_stalled_jobs(app, engine, settings)

    @app.periodic(cron=cron_every(settings.schedule_interval), periodic_id="probes")
    @app.task(name="actiondex.probe_due", queue=SCHEDULE_QUEUE, queueing_lock="probe_due")
    async def probe_due(timestamp: int) -> dict[str, Any]:
        return await probe_due_endpoints(engine, settings)


async def enqueue_due_sites(app: App, engine: Engine, settings: Settings) -> dict[str, int]:
    work = await wait_out_sync(lambda: _due_work(engine, settings.schedule_batch))
    # A site stays due until its crawl is stored: one being crawled now is not queued again
    # (the queueing lock covers waiting jobs only), else every tick of a long crawl would add
    # a job that waits for the host's lock only to find the site crawled. One waiting already
    # is not offered again either: its queueing lock would refuse it, a failed insert each
    # tick for every due site until its crawl ends.
    queued = await queued_hosts(app) if work else {}
    crawling = sum(queued.get(host) == "doing" for host, _, _ in work)
    enqueued = await enqueue_many(app, [item for item in work if item[0] not in queued])
    if enqueued >= ANALYZE_AFTER:
        # The planner's view of the queue after a burst: with the table's statistics from
        # before it (autovacuum comes later), procrastinate's fetch sorted every waiting job
        # and checked each one's host lock, 0.4 s a fetch with 1,000 waiting.
        await app.connector.execute_query_async(query="ANALYZE procrastinate_jobs")
    if work:
        log.info("%s", due_line(len(work), enqueued, crawling))
    return {"due": len(work), "enqueued": enqueued, "crawling": crawling}


async def queued_hosts(app: App) -> dict[str, str]:
    """Hosts with a crawl job waiting (``todo``) or running (``doing``; or stalled:
    retry_stalled puts it back), with that status."""
    rows = await app.connector.execute_query_all_async(query=QUEUED, task=CRAWL_TASK)
    hosts: dict[str, str] = {}
    for row in rows:  # a host may have both: running, and queued again since
        if hosts.get(row["host"]) != "doing":
            hosts[row["host"]] = row["status"]
    return hosts


def due_line(due: int, enqueued: int, crawling: int = 0) -> str:
    """The scheduler's line for a tick: the ones not enqueued are being crawled or were
    queued already."""
    already = due - enqueued - crawling
    notes = [f"{crawling} being crawled"] if crawling else []
    notes += [f"{already} queued already"] if already else []
    return f"scheduler: {plural(due, 'site')} due, {enqueued} enqueued" + (
        f" ({', '.join(notes)})" if notes else ""
    )


def _due_work(engine: Engine, limit: int) -> list[tuple[str, str | None, int]]:
    with transaction(engine) as session:
        return hooks.due_work(session, utcnow(), limit)


def heartbeat_grace(after: float) -> float:
    """Seconds after an outage before a heartbeat ``after`` seconds old is judged again: it
    stopped with the database; each waiter tries again within BACKOFF_CAP, then beats."""
    return after + BACKOFF_CAP


async def retry_stalled_jobs(app: App, engine: Engine, settings: Settings) -> dict[str, int]:
    stalled = list(
        await app.job_manager.get_stalled_jobs(
            task_name=CRAWL_TASK, seconds_since_heartbeat=settings.stalled_after
        )
    )
    # Checked after that call, which may have waited out an outage itself.
    judged = OUTAGE.settled(heartbeat_grace(settings.stalled_after))
    retried = 0
    for job in stalled if judged else []:
        retried += await _retry(app, job)
    # A crawl run's own heartbeat (ACTIONDEX_CRAWL_STALE_AFTER), not the worker's: the run
    # may belong to a crawl outside the queue.
    stale = settings.crawl_stale_after
    swept = None
    if OUTAGE.settled(heartbeat_grace(stale)):
        swept = await wait_out_sync(lambda: _sweep(engine, stale))
    if (stalled and judged) or swept:
        log.info(
            "scheduler: %d stalled jobs, %d retried; %s abandoned crawl runs aborted",
            len(stalled),
            retried,
            swept,
        )
    return {
        "stalled": len(stalled) if judged else 0,
        "retried": retried,
        "swept": swept or 0,
        "after_outage": int(not judged),
    }


async def _retry(app: App, job: Job) -> bool:
    """Back to the queue; when another job for the host waits already (its queueing lock), the
    stalled one is ended as failed instead (ReregisteringJobManager.retry_or_end says so): the
    waiting one does the crawl."""
    manager = app.job_manager
    assert isinstance(manager, ReregisteringJobManager)  # actiondex.jobs.app.make_app's
    try:
        if not await manager.retry_or_end(job):
            return False
    except ConnectorException as exc:  # no longer ``doing`` (its worker came back, ended it)
        log.info("scheduler: job %s: not retried (%s)", job.id, type(exc).__name__)
        return False
    log.info(
        "scheduler: job %s (%s) of a dead worker back in the queue",
        job.id,
        job.task_kwargs.get("host"),
    )
    return True


def _sweep(engine: Engine, stale_after: float) -> int | None:
    with transaction(engine) as session:
        return hooks.sweep_abandoned_runs(session, utcnow(), stale_after)

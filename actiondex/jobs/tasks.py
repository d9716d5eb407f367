"""The crawl job: one site, crawled in a supervised child process (actiondex.jobs.child) with
the other sites this worker's jobs asked for at the same moment (actiondex.jobs.batch).

Politeness across workers: every job of a host carries the procrastinate ``lock``
``crawl:HOST``, so two workers never crawl one host at once, and waits until the previous
crawl of the host ended plus its robots.txt Crawl-delay. Exactly once per due period: at most
one job per host waits in the queue (``queueing_lock``), and a job re-checks that its site is
still due before it crawls, since the scheduler may have enqueued it again while one ran.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import astuple, dataclass
from datetime import UTC, datetime
from typing import Any

from procrastinate import App, JobContext, RetryStrategy
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.jobs import Job

from actiondex.jobs import WORKER_BATCH, WORKER_CONCURRENCY
from actiondex.jobs.batch import Batcher
from actiondex.jobs.checks import Checker
from actiondex.jobs.child import ChildFailed, ChildResult, crawl_args, interpreter, run_child
from actiondex.jobs.forked import run_forked
from actiondex.jobs.reports import OnSite, site_reports
from registry.config import Settings
from registry.db.engine import make_engine

log = logging.getLogger("actiondex.jobs")
CRAWL_TASK = "actiondex.crawl_site"
CRAWL_QUEUE = "crawl"  # the queue `actiondex worker` takes jobs from (actiondex.jobs.app)


def host_lock(host: str) -> str:
    return f"crawl:{host}"


@dataclass(frozen=True)
class CrawlKnobs:
    """What every crawl of this worker is given (`actiondex worker --delay --max-pages`)."""

    delay: float = 1.0
    max_pages: int = 50
    fresh: bool = False  # each child a fresh interpreter rather than forked pre-loaded
    batch: int = WORKER_BATCH  # sites one child crawls at most
    linger: float = 0.5  # seconds a batch waits for more sites after its first
    concurrency: int = WORKER_CONCURRENCY  # jobs the worker runs at once: children = it / batch

    @property
    def children(self) -> int:
        return max(1, -(-self.concurrency // self.batch))


def register(app: App, settings: Settings, knobs: CrawlKnobs | None = None) -> None:
    checker = Checker(make_engine(settings), settings)
    knobs = knobs or CrawlKnobs()
    batcher = Batcher(
        lambda targets, due, on_site: crawl_child(settings, knobs, targets, due, on_site),
        knobs.batch,
        knobs.linger if knobs.batch > 1 else 0.0,
        knobs.children,
    )

    # A child that crashed or timed out is tried twice more, a minute apart; a crawl that ran
    # and found errors is a result (the schedule backs the site off), not a retry.
    @app.task(
        name=CRAWL_TASK,
        queue=CRAWL_QUEUE,
        pass_context=True,
        retry=RetryStrategy(max_attempts=2, wait=60, retry_exceptions={ChildFailed}),
    )
    async def crawl_site(
        context: JobContext, host: str, target: str | None = None
    ) -> dict[str, Any]:
        return await crawl_one(checker, batcher, host, target, context.worker_name or "worker")


async def crawl_child(
    settings: Settings, knobs: CrawlKnobs, targets: list[str], due: bool, on_site: OnSite
) -> ChildResult:
    """One child crawling ``targets`` (a batch of jobs' sites); ``on_site`` gets each site's
    row as the child stores it."""
    started = time.monotonic()
    async with site_reports(on_site) as report:
        args = [
            *crawl_args(targets, due, knobs.delay, knobs.max_pages),
            "--report-sites",
            str(report),
        ]
        if knobs.fresh:
            result = await run_child(interpreter(args), settings.job_timeout)
        else:
            result = await run_forked(args, settings.job_timeout)
    log.info(
        "a child crawled %d sites in %.1f s (exit %d)",
        len(targets),
        time.monotonic() - started,
        result.returncode,
    )
    return result


async def enqueue(app: App, host: str, priority: int, target: str | None = None) -> bool:
    """Defer a crawl of ``host`` (at ``target``, a submitted URL, while the site is not stored);
    False when one is queued for it already."""
    try:
        await app.job_manager.defer_job_async(_job(app, host, priority, target))
    except AlreadyEnqueued:
        return False
    return True


async def enqueue_many(app: App, work: list[tuple[str, str | None, int]]) -> int:
    """Defer a crawl of each (host, target, priority) in one statement: a tick of the scheduler
    may queue thousands, and one round trip each held the first crawls back by seconds. When
    one is queued already (another scheduler was quicker), each is deferred on its own.
    How many were deferred."""
    if not work:
        return 0
    try:
        await app.job_manager.batch_defer_jobs_async(
            [_job(app, host, priority, target) for host, target, priority in work]
        )
    except AlreadyEnqueued:
        return sum([await enqueue(app, host, priority, target) for host, target, priority in work])
    return len(work)


def _job(app: App, host: str, priority: int, target: str | None) -> Job:
    return (
        app.tasks[CRAWL_TASK]
        .configure(lock=host_lock(host), queueing_lock=host_lock(host), priority=priority)
        .make_new_job(host=host, target=target)
    )


async def crawl_one(
    checker: Checker,
    batcher: Batcher,
    host: str,
    submitted_at: str | None,
    worker: str,
) -> dict[str, Any]:
    due, wait, stored_at, submitted = astuple(await checker.check(host))
    if not due:
        log.info("%s: %s is not due any more, skipped", worker, host)
        return {"host": host, "skipped": "not-due"}
    if wait > 0:
        log.info("%s: %s: waiting %.1f s for its Crawl-delay", worker, host, wait)
        await asyncio.sleep(wait)
    started = datetime.now(UTC)
    log.info("%s: crawling %s", worker, host)
    # A submitted site is crawled as such (the schedule knows it only once stored).
    outcome = await batcher.crawl(host, stored_at or submitted_at or host, not submitted)
    row, child = outcome.row, outcome.child
    summary = child.summary if child is not None else {}
    error = summary.get("error")
    log.info(
        "%s: %s crawled in %.1f s (%s): %s",
        worker,
        host,
        (datetime.now(UTC) - started).total_seconds(),
        "stored" if child is None else f"exit {child.returncode}",
        error.get("message")
        if isinstance(error, dict)
        else "not crawled (no longer due)"
        if row is None
        else f"{row.get('documents')} documents, {row.get('actions')} actions, "
        f"{len(row.get('errors') or [])} errors",
    )
    return {
        "host": host,
        "started_at": started.isoformat(),
        **(row or {"skipped": "not-due"}),
        # The child's, for all the sites of its batch, when this job waited for its end.
        **(
            {
                "exit": child.returncode,
                "batch": len(summary.get("per_site") or []),
                **{k: summary.get(k) for k in ("requests", "seconds")},
            }
            if child is not None
            else {}
        ),
        **({"error": error} if error is not None else {}),
    }

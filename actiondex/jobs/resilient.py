"""procrastinate's connector and job manager, made to outlive the database (issue 25.3).

Written against procrastinate 3.10.0, through its public connector and JobManager methods only
(no private one is overridden); tests/jobs/test_outage.py runs both against a real PostgreSQL.

- ResilientConnector: every query waits out an unreachable database (actiondex.jobs.outage)
  instead of raising, and so does the LISTEN connection (procrastinate's pool checks a
  connection before lending it, so a query after an outage does not fail on a closed one).
- ReregisteringJobManager: a worker whose row in procrastinate_workers was pruned while the
  database was away (a worker starting elsewhere prunes silent ones) registers again at its
  next heartbeat or job fetch (where the foreign key fails), and takes back the jobs it runs,
  whose worker_id the prune set to NULL, before the scheduler could take them for stalled;
  and a job it retries while the scheduler has queued another for the same host (the queueing
  lock allows one waiting job) ends failed instead, in one log line: the waiting job crawls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import psycopg
from procrastinate import PsycopgConnector, connector, exceptions
from procrastinate.jobs import Job, Status
from procrastinate.manager import QUEUEING_LOCK_CONSTRAINT, JobManager

from actiondex.jobs.outage import (
    BACKOFF_CAP,
    BACKOFF_FIRST,
    OUTAGE,
    backoff,
    log,
    unreachable,
    wait_out,
)

HEARTBEAT = (
    "UPDATE procrastinate_workers SET last_heartbeat = NOW() WHERE id = %(worker_id)s RETURNING id"
)
REOWN = (
    "UPDATE procrastinate_jobs SET worker_id = %(worker_id)s WHERE id = ANY(%(ids)s) "
    "AND status = 'doing' AND worker_id IS NULL"
)


class ResilientConnector(PsycopgConnector):
    async def execute_query_async(self, query: Any, **arguments: Any) -> None:
        run = super().execute_query_async
        return await wait_out(lambda: run(query, **arguments))

    async def execute_query_one_async(self, query: Any, **arguments: Any) -> dict[str, Any]:
        run = super().execute_query_one_async
        return await wait_out(lambda: run(query, **arguments))

    async def execute_query_all_async(self, query: Any, **arguments: Any) -> list[dict[str, Any]]:
        run = super().execute_query_all_async
        return await wait_out(lambda: run(query, **arguments))

    async def listen_notify(
        self, on_notification: connector.Notify, channels: Iterable[str]
    ) -> None:
        """procrastinate's own reconnects a LISTEN connection that died, but raises (and the
        worker stops) when it cannot connect again: here it waits."""
        delays = backoff(BACKOFF_FIRST, BACKOFF_CAP)
        while True:
            try:
                await super().listen_notify(on_notification, channels)
            except Exception as exc:
                if not unreachable(exc):
                    raise
                if not OUTAGE.down:  # a new outage: start the backoff again
                    delays = backoff(BACKOFF_FIRST, BACKOFF_CAP)
                OUTAGE.failed(exc)
                await asyncio.sleep(next(delays))


def _foreign_key(exc: BaseException) -> bool:
    return isinstance(exc.__cause__, psycopg.errors.ForeignKeyViolation)


class ReregisteringJobManager(JobManager):
    """JobManager whose worker registers again when its row is gone. A worker keeps calling
    with the id it registered first; this maps it to the current one."""

    def __init__(self, connector: connector.BaseConnector) -> None:
        super().__init__(connector)
        self.current: dict[int, int] = {}  # first id -> current id
        self.held: set[int] = set()  # ids of the jobs this process runs

    async def fetch_job(self, queues: Iterable[str] | None, worker_id: int) -> Job | None:
        try:
            job = await super().fetch_job(queues, self.current.get(worker_id, worker_id))
        except exceptions.ConnectorException as exc:
            if not _foreign_key(exc):
                raise
            await self.register_again(worker_id)
            job = await super().fetch_job(queues, self.current[worker_id])
        if job is not None and job.id is not None:
            self.held.add(job.id)
        return job

    async def update_heartbeat(self, worker_id: int) -> None:
        rows = await self.connector.execute_query_all_async(
            query=HEARTBEAT, worker_id=self.current.get(worker_id, worker_id)
        )
        if not rows:
            await self.register_again(worker_id)

    async def unregister_worker(self, worker_id: int) -> None:
        await super().unregister_worker(self.current.get(worker_id, worker_id))

    async def finish_job(self, job: Job, *args: Any, **kwargs: Any) -> None:
        await super().finish_job(job, *args, **kwargs)
        self.held.discard(job.id or 0)

    async def retry_job(self, job: Job, *args: Any, **kwargs: Any) -> None:
        await self.retry_or_end(job, *args, **kwargs)

    async def retry_or_end(self, job: Job, *args: Any, **kwargs: Any) -> bool:
        """Back to the queue (True); when another job with its queueing lock waits there
        already, ended as failed instead (False): a retry and a queued job for one host never
        both exist. procrastinate's worker calls retry_job after a failed attempt and would
        leave the UniqueViolation unhandled (a traceback, the job ``doing`` for good)."""
        try:
            await super().retry_job(job, *args, **kwargs)
        except exceptions.UniqueViolation as exc:
            if exc.constraint_name != QUEUEING_LOCK_CONSTRAINT:
                raise
            await self.finish_job(job, status=Status.FAILED, delete_job=False)
            log.info(
                "job %s (%s): another is queued; ended as failed",
                job.id,
                job.task_kwargs.get("host"),
            )
            return False
        self.held.discard(job.id or 0)
        return True

    async def register_again(self, worker_id: int) -> int:
        new = await self.register_worker()
        self.current[worker_id] = new
        if self.held:
            await self.connector.execute_query_async(
                query=REOWN, worker_id=new, ids=sorted(self.held)
            )
        log.warning(
            "worker %s was pruned while the database was away: registered again as "
            "%s, with its %d running jobs",
            worker_id,
            new,
            len(self.held),
        )
        return new

"""Crawl jobs share crawl children: the sites a worker's jobs ask for within a moment go to one
child (`actiondex crawl --due T1 T2 ...`), up to ``size`` sites each (issue 23.2).

Why: a child per site spent most of its time starting (the fork, Scrapy's reactor, the store's
engine, the run's rows), so a worker with two children idled while the queue was full. One
child crawling many sites keeps them all in flight at their own pace (Scrapy's per-host slots)
for one start-up. Each job still holds its host's procrastinate lock until the child that
crawls its host has ended, so no host is crawled by two at once, and a job's result is its
host's row of the child's summary.

Why not one long-lived crawl process per worker taking sites as they come: a child that ends
gives all of a crawl's memory back, and its run row, heartbeat, SIGTERM and timeout work as
for `actiondex crawl`; a long-lived reactor would need each of those again, per site.

A job cancelled (SIGTERM past the grace, an abort) before its batch starts leaves the batch; once
the child runs, the job waits for it to end (its host is being crawled: the lock must hold),
unless it was the batch's last job, which stops the child.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from actiondex.jobs.child import ChildResult

RunBatch = Callable[[list[str], bool], Awaitable[ChildResult]]


@dataclass
class _Batch:
    due: bool
    targets: list[str] = field(default_factory=list)
    waiting: int = 0  # jobs still awaiting this batch
    full: asyncio.Event = field(default_factory=asyncio.Event)
    started: bool = False
    task: asyncio.Task[ChildResult] | None = None


class Batcher:
    """Gathers targets into batches of at most ``size``; a batch starts when full or
    ``linger`` seconds after its first target, whichever comes first, and then only when
    fewer than ``children`` of its children run: until then it goes on taking targets. So
    jobs that trickle in on a loaded machine make few full children, not many small ones
    (each child's start costs about a CPU-second)."""

    def __init__(self, run: RunBatch, size: int, linger: float, children: int) -> None:
        self.run, self.size, self.linger = run, size, linger
        self.slots = asyncio.Semaphore(children)
        self.open: dict[bool, _Batch] = {}  # the batch still taking targets, by --due

    async def crawl(self, target: str, due: bool) -> ChildResult:
        """The result of the child that crawled ``target`` (with others); raises what the
        child raised (ChildFailed) for every job of the batch."""
        batch = self.open.get(due)
        if batch is None:
            batch = self.open[due] = _Batch(due)
            batch.task = asyncio.create_task(self._start(batch))
        batch.targets.append(target)
        batch.waiting += 1
        if len(batch.targets) >= self.size:
            self._close(batch)
        task = batch.task
        assert task is not None
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            await self._leave(batch, target)
            raise

    def _close(self, batch: _Batch) -> None:
        if self.open.get(batch.due) is batch:
            del self.open[batch.due]
        batch.full.set()

    async def _start(self, batch: _Batch) -> ChildResult:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(batch.full.wait(), self.linger)
        async with self.slots:
            self._close(batch)
            batch.started = True
            return await self.run(list(batch.targets), batch.due)

    async def _leave(self, batch: _Batch, target: str) -> None:
        """A job of ``batch`` was cancelled: out of the batch if it has not started; else
        the child goes on for the others and this job waits for it (or stops it, last)."""
        batch.waiting -= 1
        task = batch.task
        assert task is not None
        if not batch.started:
            batch.targets.remove(target)
            if not batch.targets:
                self._close(batch)
                task.cancel()
            return
        if batch.waiting == 0:
            task.cancel()
        with contextlib.suppress(BaseException):
            await task


def site_row(result: ChildResult, host: str) -> dict[str, Any] | None:
    """``host``'s row of a crawl summary (None: not crawled, e.g. no longer due)."""
    for row in result.summary.get("per_site") or []:
        if isinstance(row, dict) and row.get("host") == host:
            return row
    return None

"""Crawl jobs share crawl children: the sites a worker's jobs ask for within a moment go to one
child (`actiondex crawl --due T1 T2 ...`), up to ``size`` sites each (issue 23.2).

Why: a child per site spent most of its time starting (the fork, Scrapy's reactor, the store's
engine, the run's rows), so a worker with two children idled while the queue was full. One
child crawling many sites keeps them all in flight at their own pace (Scrapy's per-host slots)
for one start-up.

A job ends when the child says its site is stored (actiondex.jobs.reports), and only then: its
host's procrastinate lock holds while the host is crawled, so no host is crawled by two at once.
A site the child never reports (not due any more, spooled while the database was away) gets its
row from the child's summary when the child ends. Before, every job waited for its child's end,
so each site of a batch waited for the batch's slowest (6-21 s where a recrawl needs ~1.5 s) and
the worker's slots sat idle (5,000 sites: two workers took 7.5x one process).

Children: at most ``children`` take new sites at once, and a child stops counting against that
once half of its sites are reported, so a child finishing its slow tail does not hold the next
batch back; at most ``alive`` children exist at once, tails included (each is a process).

Why not one long-lived crawl process per worker taking sites as they come: a child that ends
gives all of a crawl's memory back, and its run row, heartbeat, SIGTERM and timeout work as
for `actiondex crawl`; a long-lived reactor would need each of those again, per site.

A job cancelled (SIGTERM past the grace, an abort) before its batch starts leaves the batch; once
the child runs, the job waits for its site (its host is being crawled: the lock must hold),
unless it was the batch's last job waiting, which stops the child.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from actiondex.jobs.child import ChildResult
from actiondex.jobs.reports import OnSite

RunBatch = Callable[[list[str], bool, OnSite], Awaitable[ChildResult]]


@dataclass
class SiteResult:
    """A job's outcome: its host's row (None: the child did not crawl it, e.g. no longer
    due) and, when the job waited for its child's end, the child's result."""

    row: dict[str, Any] | None
    child: ChildResult | None = None


@dataclass
class _Batch:
    due: bool
    targets: list[str] = field(default_factory=list)
    sites: dict[str, asyncio.Future[SiteResult]] = field(default_factory=dict)  # by host
    waiting: int = 0  # jobs still awaiting their site
    reported: int = 0  # sites the child has reported stored
    full: asyncio.Event = field(default_factory=asyncio.Event)
    started: bool = False
    task: asyncio.Task[ChildResult] | None = None


class Batcher:
    """Gathers targets into batches of at most ``size``; a batch starts when full or
    ``linger`` seconds after its first target, whichever comes first, and then only when
    fewer than ``children`` children take sites (and fewer than ``alive`` exist): until then
    it goes on taking targets. So jobs that trickle in on a loaded machine make few full
    children, not many small ones (each child's start costs about a CPU-second)."""

    def __init__(
        self, run: RunBatch, size: int, linger: float, children: int, alive: int | None = None
    ) -> None:
        self.run, self.size, self.linger = run, size, linger
        self.slots = asyncio.Semaphore(children)
        self.alive = asyncio.Semaphore(alive or 4 * children)
        self.open: dict[bool, _Batch] = {}  # the batch still taking targets, by --due

    async def crawl(self, host: str, target: str, due: bool) -> SiteResult:
        """The outcome of ``host``'s crawl at ``target`` (with others' in one child); raises
        what the child raised (ChildFailed) when it failed before reporting the site."""
        batch = self.open.get(due)
        if batch is None:
            batch = self.open[due] = _Batch(due)
            batch.task = asyncio.create_task(self._start(batch))
            batch.task.add_done_callback(_retrieve)
        batch.targets.append(target)
        site = batch.sites[host] = asyncio.get_running_loop().create_future()
        batch.waiting += 1
        if len(batch.targets) >= self.size:
            self._close(batch)
        try:
            result = await asyncio.shield(site)
        except asyncio.CancelledError:
            await self._leave(batch, host, target)
            raise
        except BaseException:
            batch.waiting -= 1
            raise
        batch.waiting -= 1
        return result

    def _close(self, batch: _Batch) -> None:
        if self.open.get(batch.due) is batch:
            del self.open[batch.due]
        batch.full.set()

    async def _start(self, batch: _Batch) -> ChildResult:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(batch.full.wait(), self.linger)
        await self.slots.acquire()
        taking = True

        def done_taking() -> None:
            nonlocal taking
            if taking:
                taking = False
                self.slots.release()

        def reported(row: dict[str, Any]) -> None:
            site = batch.sites.get(str(row.get("host")))
            if site is not None and not site.done():
                site.set_result(SiteResult(row))
                batch.reported += 1
                if 2 * batch.reported >= len(batch.targets):
                    done_taking()

        try:
            async with self.alive:
                self._close(batch)
                batch.started = True
                result = await self.run(list(batch.targets), batch.due, reported)
        except BaseException as exc:
            for site in batch.sites.values():
                if site.done():
                    continue
                if isinstance(exc, Exception):
                    site.set_exception(exc)
                else:
                    site.cancel()
            raise
        finally:
            done_taking()
        for host, site in batch.sites.items():
            if not site.done():
                site.set_result(SiteResult(site_row(result, host), result))
        return result

    async def _leave(self, batch: _Batch, host: str, target: str) -> None:
        """A job of ``batch`` was cancelled: out of the batch if it has not started; else
        the child goes on for the others and this job waits for its site (or stops the child
        when no other job waits)."""
        batch.waiting -= 1
        task = batch.task
        assert task is not None
        if not batch.started:
            batch.targets.remove(target)
            del batch.sites[host]
            if not batch.targets:
                self._close(batch)
                task.cancel()
            return
        if batch.waiting == 0:
            task.cancel()
        with contextlib.suppress(BaseException):
            await batch.sites[host]


def _retrieve(task: asyncio.Task[ChildResult]) -> None:
    """A child's failure reaches its jobs through their sites; taken here so asyncio does not
    log it again as never retrieved."""
    if not task.cancelled():
        task.exception()


def site_row(result: ChildResult, host: str) -> dict[str, Any] | None:
    """``host``'s row of a crawl summary (None: not crawled, e.g. no longer due)."""
    for row in result.summary.get("per_site") or []:
        if isinstance(row, dict) and row.get("host") == host:
            return row
    return None

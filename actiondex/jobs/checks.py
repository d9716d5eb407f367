"""Before it crawls, a job asks the store whether its site is still due, where it lives and how
long its Crawl-delay holds it (actiondex.jobs.tasks); the jobs a worker takes meanwhile ask
together, in one transaction.

Why: a worker takes up to --concurrency jobs in a burst when due sites come in. A transaction
of four queries a job, each in a thread of its own, queued 128 checks behind the loop's few
threads on a busy machine: the crawl child's batch waited for them. One check in flight at a
time, the hosts asked while it runs going together in the next, costs a transaction per burst
and adapts to the load by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from protego import Protego
from sqlalchemy import Engine, select

from actiondex.jobs import hooks
from actiondex.jobs.outage import wait_out_sync
from crawler.robots import MAX_CRAWL_DELAY
from registry.config import Settings
from registry.db.engine import transaction
from registry.db.tables import Site
from registry.store.rows import utcnow


@dataclass(frozen=True)
class Check:
    due: bool  # still due (or a submission waits for it)
    wait: float  # seconds its Crawl-delay holds it, since the previous crawl ended
    origin: str | None  # the stored origin (it keeps the scheme and port); None: not stored
    submitted: bool  # a submission waits for its crawl


class Checker:
    """Checks hosts for jobs, one transaction in flight; hosts asked meanwhile wait for the
    next, together. A database outage is waited out (actiondex.jobs.outage) by all of them."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine, self.settings = engine, settings
        self.asked: dict[str, list[asyncio.Future[Check]]] = {}
        self.running: asyncio.Task[None] | None = None

    async def check(self, host: str) -> Check:
        answer: asyncio.Future[Check] = asyncio.get_running_loop().create_future()
        self.asked.setdefault(host, []).append(answer)
        if self.running is None:
            self.running = asyncio.create_task(self._drain())
        return await answer

    async def _drain(self) -> None:
        try:
            while self.asked:
                await asyncio.sleep(0)  # the jobs taken in this turn of the loop join
                asked, self.asked = self.asked, {}
                try:
                    found = await wait_out_sync(
                        partial(check_hosts, self.engine, self.settings, list(asked))
                    )
                except Exception as exc:
                    for _, answer in _waiting(asked):
                        answer.set_exception(exc)
                    continue
                for host, answer in _waiting(asked):
                    result = found[host]
                    if isinstance(result, Exception):
                        answer.set_exception(result)  # this host's job fails, not the group
                    else:
                        answer.set_result(result)
        finally:
            self.running = None


def _waiting(
    asked: dict[str, list[asyncio.Future[Check]]],
) -> Iterator[tuple[str, asyncio.Future[Check]]]:
    """The answers still awaited (a job cancelled meanwhile awaits none)."""
    for host, answers in asked.items():
        yield from ((host, answer) for answer in answers if not answer.done())


def check_hosts(
    engine: Engine, settings: Settings, hosts: list[str]
) -> dict[str, Check | Exception]:
    """Each of ``hosts``' Check, at one moment, in one transaction; what one host's own
    stored state raised (its remembered robots.txt, say) in place of its Check."""
    now = utcnow()
    with transaction(engine) as session:
        due, submitted = hooks.checks(session, hosts, now)
        # Only what a check reads, not the whole row (its crawl state holds every remembered
        # path). At 5,000 sites this did not move the worker's CPU (README, "Running at scale").
        robots = Site.crawl_state["robots"].label("robots")
        columns = (Site.host, Site.origin, Site.last_crawled_at, robots)
        sites = {
            row.host: row
            for row in session.execute(select(*columns).where(Site.host.in_(sorted(due))))
        }
        found: dict[str, Check | Exception] = {}
        for host in hosts:
            site = sites.get(host)
            try:
                wait = (
                    _wait(site.robots, site.last_crawled_at, settings, now)
                    if site is not None
                    else 0.0
                )
            except Exception as exc:
                found[host] = exc
                continue
            found[host] = Check(
                host in due, wait, site.origin if site is not None else None, host in submitted
            )
    return found


def _wait(robots: Any, ended: datetime | None, settings: Settings, now: datetime) -> float:
    """Seconds the site's Crawl-delay (from ``robots``, its remembered robots.txt) still holds
    it since its last crawl ended (``ended``)."""
    delay = crawl_delay({"robots": robots}, settings.user_agent)
    return max(0.0, delay - (now - ended).total_seconds()) if delay and ended else 0.0


def crawl_delay(state: dict[str, Any] | None, user_agent: str) -> float | None:
    """The Crawl-delay of the robots.txt the crawler remembers for the site (crawler/memory.py),
    capped as the crawler caps it."""
    robots = (state or {}).get("robots")
    if not isinstance(robots, dict) or not isinstance(robots.get("body"), str):
        return None
    if "crawl" not in robots["body"].lower():  # no Crawl-delay line: Protego's parse not needed
        return None
    delay = Protego.parse(robots["body"]).crawl_delay(user_agent)
    return min(float(delay), MAX_CRAWL_DELAY) if delay else None

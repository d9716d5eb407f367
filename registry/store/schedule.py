"""The adaptive recrawl schedule: when each site is due again, and which sites are due now.

After every crawl of a site (in the transaction that promoted it) ``after_crawl`` sets its
next-crawl time from the outcome:

- ``changed``: the site moves, come back sooner: the interval halves, never below the minimum;
- ``unchanged``: come back later: the interval grows by half, never above the maximum;
- ``failed``: back off exponentially by consecutive failures (minimum * 2**(failures-1)),
  capped; the interval a good crawl earned is kept for when the site recovers.

A site's first crawl gets the initial interval. A small jitter, fixed per host, takes up to
a tenth off each delay, so sites crawled together do not all come due together again.
Functions take a Session and at most flush(); the caller owns the transaction.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from registry.config import Settings
from registry.db.tables import Site
from registry.submissions import queue as submissions

Outcome = Literal["changed", "unchanged", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("changed", "unchanged", "failed")
GROWTH = 1.5  # an unchanged crawl's interval factor
SHRINK = 0.5  # a changed crawl's
JITTER = 0.1  # the most a host's jitter takes off a delay
MAX_FAILURE_EXPONENT = 30  # 2**30 minimums is past any cap; keeps the arithmetic small
SUBMISSIONS_READ = 10_000  # queued submissions looked at for chosen hosts (the queue holds 1000)


@dataclass(frozen=True)
class Bounds:
    """Seconds: the shortest and longest interval, a new site's, the longest back-off."""

    min: int = 3600
    initial: int = 86400
    max: int = 7 * 86400
    backoff_max: int = 7 * 86400

    @classmethod
    def from_settings(cls, settings: Settings) -> Bounds:
        return cls(
            settings.recrawl_min,
            settings.recrawl_initial,
            settings.recrawl_max,
            settings.recrawl_backoff_max,
        )


def next_interval(interval: int | None, outcome: Outcome, bounds: Bounds) -> int:
    """The interval (seconds) a good crawl earns; a failed crawl keeps the one it had."""
    if interval is None:
        return bounds.initial
    if outcome == "changed":
        return max(bounds.min, int(interval * SHRINK))
    if outcome == "unchanged":
        return min(bounds.max, max(bounds.min, int(interval * GROWTH)))
    return interval


def backoff(failures: int, bounds: Bounds) -> int:
    """Seconds to wait after ``failures`` (>= 1) failed crawls in a row."""
    exponent = min(max(failures, 1) - 1, MAX_FAILURE_EXPONENT)
    return min(bounds.backoff_max, bounds.min * (1 << exponent))  # 2**exponent, exponent >= 0


def jitter(host: str) -> float:
    """A fraction in [0, JITTER), the same for a host every time (not random: reproducible)."""
    digest = hashlib.sha256(host.encode()).digest()
    return JITTER * int.from_bytes(digest[:4], "big") / 2**32


def after_crawl(
    session: Session, site_or_host: Site | str, outcome: Outcome, bounds: Bounds, now: datetime
) -> datetime | None:
    """Schedule the site's next crawl from this one's outcome; returns when it is due (None
    when no such site is stored). ``now``: naive UTC, as the store keeps it."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
    site = (
        site_or_host
        if isinstance(site_or_host, Site)
        else session.scalars(select(Site).where(Site.host == site_or_host)).one_or_none()
    )
    if site is None:
        return None
    site.crawl_interval = next_interval(site.crawl_interval, outcome, bounds)
    site.crawl_failures = (site.crawl_failures or 0) + 1 if outcome == "failed" else 0
    delay = backoff(site.crawl_failures, bounds) if outcome == "failed" else site.crawl_interval
    site.last_crawled_at = now
    site.next_crawl_at = now + timedelta(seconds=delay * (1 - jitter(site.host)))
    session.flush()
    return site.next_crawl_at


def not_removed() -> ColumnElement[bool]:
    """Sites a schedule may pick: those an operator has not removed (``sites remove``)."""
    return Site.removed_at.is_(None)


def due_hosts(session: Session, now: datetime, limit: int | None = None) -> list[str]:
    """Hosts due for a crawl at ``now``, most overdue first (the host breaks ties)."""
    query = (
        select(Site.host)
        .where(Site.next_crawl_at <= now, not_removed())
        .order_by(Site.next_crawl_at, Site.host)
    )
    if limit is not None:
        query = query.limit(limit)
    return list(session.scalars(query))


def is_due(session: Session, host: str, now: datetime) -> bool:
    """Whether the stored site ``host`` is due for a crawl at ``now`` (False if unknown)."""
    found = session.scalar(
        select(Site.id).where(Site.host == host, Site.next_crawl_at <= now, not_removed())
    )
    return found is not None


ONLY_CHUNK = 500  # hosts asked in one query (a worker's crawl child asks for up to 512)


def due_among(session: Session, hosts: list[str], now: datetime) -> set[str]:
    """Those of ``hosts`` that is_due says are due, in one query."""
    query = select(Site.host).where(Site.host.in_(hosts), Site.next_crawl_at <= now, not_removed())
    return set(session.scalars(query))


# What is due, decided here once: `actiondex crawl --due` (actiondex.due) and the scheduler
# and its workers (actiondex.jobs) all ask these two.
def due_work(
    session: Session, now: datetime, limit: int, only: list[str] | None = None
) -> list[tuple[str, str | None]]:
    """What to crawl at ``now``, in order, at most ``limit``: (host, submitted URL) for each
    queued submission, oldest first (a submitted site may not be stored yet: its URL is what
    to crawl), then (host, None) for each stored site that is due, most overdue first; with
    ``only`` (hosts), just those of them."""
    wanted = None if only is None else set(only)
    read = limit if wanted is None else SUBMISSIONS_READ
    work: dict[str, str | None] = {}
    for host, url in submissions.pending(session, read):
        if wanted is None or host in wanted:
            work.setdefault(host, url)
    if only is None:
        hosts = due_hosts(session, now, limit + len(work))
    else:
        asked = list(dict.fromkeys(only))
        due: set[str] = set()
        for start in range(0, len(asked), ONLY_CHUNK):  # a query a chunk, not one a host
            due |= due_among(session, asked[start : start + ONLY_CHUNK], now)
        hosts = [host for host in asked if host in due]
    for host in hosts:
        work.setdefault(host, None)
    return list(work.items())[:limit]


def should_crawl(session: Session, host: str, now: datetime) -> bool:
    """Whether ``host`` is due for a crawl at ``now``: a submission waits for it, or the
    schedule says so (a job asks again before it crawls: the scheduler may have enqueued the
    host again while an earlier job ran, and that one made it not due)."""
    return submissions.is_queued(session, host) or is_due(session, host, now)

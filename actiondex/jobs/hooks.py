"""What the queue asks the store, in one place: the recrawl schedule (registry.store.schedule),
submissions (registry.submissions.queue) and the sweep of abandoned crawl runs
(registry.store.crawl_state.sweep_abandoned_runs)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from registry.store import schedule
from registry.store.crawl_state import sweep_abandoned_runs as sweep
from registry.submissions import queue as submissions

SUBMITTED_PRIORITY = 10  # procrastinate runs higher priorities first
SCHEDULED_PRIORITY = 0


def due_work(session: Session, now: datetime, limit: int) -> list[tuple[str, str | None, int]]:
    """(host, submitted URL or None, priority) to enqueue, as registry.store.schedule.due_work
    orders them: a submitted site runs first."""
    return [
        (host, url, SCHEDULED_PRIORITY if url is None else SUBMITTED_PRIORITY)
        for host, url in schedule.due_work(session, now, limit)
    ]


def submitted(session: Session, host: str) -> bool:
    """Whether ``host`` has a submission waiting for its crawl."""
    return submissions.is_queued(session, host)


def is_due(session: Session, host: str, now: datetime) -> bool:
    """Whether a job for ``host`` should still crawl it (registry.store.schedule.should_crawl)."""
    return schedule.should_crawl(session, host, now)


def checks(session: Session, hosts: list[str], now: datetime) -> tuple[set[str], set[str]]:
    """(those of ``hosts`` a job should still crawl, as is_due says; those with a submission
    waiting for their crawl), for many jobs at once."""
    submitted = submissions.queued_among(session, hosts)
    return submitted | schedule.due_among(session, hosts, now), submitted


def sweep_abandoned_runs(session: Session, now: datetime, stale_after: float) -> int:
    """Mark crawl runs whose process died as aborted (their submissions go back to the
    queue); how many."""
    return len(sweep(session, now, stale_after))

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
    """(host, submitted URL or None, priority) to enqueue: pending submissions first (a
    submitted site may not be stored yet: its URL is what to crawl), then sites that are due."""
    work: dict[str, tuple[str | None, int]] = {}
    work.update((host, (url, SUBMITTED_PRIORITY))
                for host, url in submissions.pending(session, limit))
    for host in schedule.due_hosts(session, now, limit):
        work.setdefault(host, (None, SCHEDULED_PRIORITY))
    return [(host, url, priority) for host, (url, priority) in list(work.items())[:limit]]


def submitted(session: Session, host: str) -> bool:
    """Whether ``host`` has a submission waiting for its crawl."""
    found = submissions.open_submission(session, host)
    return found is not None and found.status == "queued"


def is_due(session: Session, host: str, now: datetime) -> bool:
    """Whether a job for ``host`` should still crawl it: the scheduler may have enqueued it
    again while an earlier job ran, and that one made it not due."""
    return submitted(session, host) or schedule.is_due(session, host, now)


def sweep_abandoned_runs(session: Session, now: datetime, stale_after: float) -> int:
    """Mark crawl runs whose process died as aborted (their submissions go back to the
    queue); how many."""
    return len(sweep(session, now, stale_after))

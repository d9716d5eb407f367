"""The other parts of issue 12 the queue calls, in one place: the recrawl schedule
(registry.schedule), submissions (registry.submissions) and the sweep of abandoned crawl runs
(registry.crawl_state.sweep_abandoned_runs). Each is used when its module has it.

Without the schedule, a site is due when it has never been crawled (no crawl memory yet), so a
deployment still crawls every known site once; the schedule makes that adaptive.
"""

from __future__ import annotations

import importlib
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.models import Site

SUBMITTED_PRIORITY = 10  # procrastinate runs higher priorities first
SCHEDULED_PRIORITY = 0


def _find(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def has_schedule() -> bool:
    return _find("registry.schedule", "is_due") is not None


def due_work(session: Session, now: datetime, limit: int) -> list[tuple[str, str | None, int]]:
    """(host, submitted URL or None, priority) to enqueue: pending submissions first (a
    submitted site may not be stored yet: its URL is what to crawl), then sites that are due."""
    work: dict[str, tuple[str | None, int]] = {}
    if pending := _find("registry.submissions", "pending"):
        work.update((host, (url, SUBMITTED_PRIORITY)) for host, url in pending(session, limit))
    for host in due_hosts(session, now, limit):
        work.setdefault(host, (None, SCHEDULED_PRIORITY))
    return [(host, url, priority) for host, (url, priority) in list(work.items())[:limit]]


def due_hosts(session: Session, now: datetime, limit: int) -> list[str]:
    if scheduled := _find("registry.schedule", "due_hosts"):
        return list(scheduled(session, now, limit))
    query = select(Site.host).where(Site.crawl_state.is_(None)).order_by(Site.id).limit(limit)
    return list(session.scalars(query))


def submitted(session: Session, host: str) -> bool:
    """Whether ``host`` has a submission waiting for its crawl."""
    if pending := _find("registry.submissions", "open_submission"):
        found = pending(session, host)
        return found is not None and getattr(found, "status", "queued") == "queued"
    return False


def is_due(session: Session, host: str, now: datetime) -> bool:
    """Whether a job for ``host`` should still crawl it: the scheduler may have enqueued it
    again while an earlier job ran, and that one made it not due."""
    if submitted(session, host):
        return True
    if scheduled := _find("registry.schedule", "is_due"):
        return bool(scheduled(session, host, now))
    state = session.scalar(select(Site.crawl_state).where(Site.host == host))
    return state is None


def last_crawled_at(site: Site) -> datetime | None:
    """When the previous crawl of the site ended (the schedule keeps it)."""
    return getattr(site, "last_crawled_at", None)


def has_sweep() -> bool:
    return _find("registry.crawl_state", "sweep_abandoned_runs") is not None


def sweep_abandoned_runs(session: Session, now: datetime, stale_after: float) -> int | None:
    """Mark crawl runs whose process died as aborted (how many); None when the sweep is not
    there."""
    if sweep := _find("registry.crawl_state", "sweep_abandoned_runs"):
        swept = sweep(session, now, stale_after)
        return len(swept) if isinstance(swept, list | tuple | set) else int(swept or 0)
    return None

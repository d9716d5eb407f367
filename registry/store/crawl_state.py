"""What crawls keep in the store beside the sites' documents, as use cases: the record of each
run and its lifecycle (heartbeat, owner, the sweep that marks abandoned runs aborted), the
validators stored documents came with (for conditional GET), each site's crawl memory
(``sites.crawl_state``) and when it last changed. Functions take a Session and at most
flush(); the crawler owns the transaction."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from registry.db.tables import CrawlRun, Document, Site
from registry.model.statuses import RUN_STATUSES
from registry.store.promotion import NotFound
from registry.store.rows import utcnow
from registry.submissions.queue import requeue

Validators = dict[str, tuple[str | None, str | None]]  # url -> (etag, last_modified)


def stored_validators(session: Session, hosts: list[str]) -> Validators:
    """url -> (etag, last_modified) for the stored documents of ``hosts`` that have either."""
    query = (
        select(Document.url, Document.etag, Document.last_modified)
        .join(Site, Document.site_id == Site.id)
        .where(Site.host.in_(hosts))
        .where((Document.etag.is_not(None)) | (Document.last_modified.is_not(None)))
    )
    return {url: (etag, modified) for url, etag, modified in session.execute(query)}


def stored_urls(session: Session, hosts: list[str]) -> dict[str, list[str]]:
    """host -> the URLs of its stored documents: the crawl checks them against robots.txt."""
    query = (
        select(Site.host, Document.url)
        .join(Site, Document.site_id == Site.id)
        .where(Site.host.in_(hosts))
        .order_by(Document.url)
    )
    found: dict[str, list[str]] = {}
    for host, url in session.execute(query):
        found.setdefault(host, []).append(url)
    return found


def crawl_states(session: Session, hosts: list[str]) -> dict[str, dict[str, Any]]:
    """host -> the crawl memory stored for it, for the ``hosts`` that have one."""
    rows = session.execute(select(Site.host, Site.crawl_state).where(Site.host.in_(hosts)))
    return {host: state for host, state in rows if state}


def save_crawl_state(session: Session, host: str, state: dict[str, Any]) -> None:
    session.execute(update(Site).where(Site.host == host).values(crawl_state=state))


def changed_since(session: Session, host: str, timestamp: float) -> bool:
    """Whether the site's stored actions changed after ``timestamp`` (seconds since the epoch)."""
    changed = session.scalar(select(Site.changed_at).where(Site.host == host))
    return changed is not None and changed > datetime.fromtimestamp(timestamp, UTC).replace(
        tzinfo=None
    )  # the store keeps naive UTC


class CrawlAborted(BaseException):  # like KeyboardInterrupt: no `except Exception` stops it
    """A crawl told to stop (SIGTERM, SIGINT): its run is recorded ``aborted``."""

    def __init__(self, run_id: int | None = None) -> None:
        super().__init__(f"crawl run {run_id} aborted" if run_id else "crawl aborted")
        self.run_id = run_id


def this_owner() -> str:
    """Who runs a crawl: "hostname:pid"."""
    return f"{socket.gethostname()}:{os.getpid()}"


def start_run(session: Session, kind: str, targets: list[str]) -> int:
    now = utcnow()
    run = CrawlRun(
        kind=kind,
        status="running",
        started_at=now,
        targets=targets,
        stats={},
        heartbeat_at=now,
        owner=this_owner(),
    )
    session.add(run)
    session.flush()
    return run.id


def heartbeat(session: Session, run_id: int, now: datetime | None = None) -> bool:
    """Say the run is alive; False when it is not running any more (a sweep ended it)."""
    done = session.execute(
        update(CrawlRun)
        .where(CrawlRun.id == run_id, CrawlRun.status == "running")
        .values(heartbeat_at=now or utcnow())
    )
    return bool(getattr(done, "rowcount", 0))


def sweep_abandoned_runs(
    session: Session, now: datetime, stale_after: timedelta | float
) -> list[int]:
    """Mark ``aborted`` every running run whose heartbeat is older than ``stale_after``
    (seconds or a timedelta), or whose owner ran on this host and is gone; returns their ids.
    The submissions such a run had taken go back to the queue (registry.submissions.queue.requeue):
    its crawl may have been spooled and never settled them, and a submission left `crawling`
    would keep its host from being submitted or crawled again."""
    stale = stale_after if isinstance(stale_after, timedelta) else timedelta(seconds=stale_after)
    running = session.scalars(
        select(CrawlRun).where(CrawlRun.status == "running").with_for_update(skip_locked=True)
    ).all()
    swept = []
    for run in running:
        seen = run.heartbeat_at or run.started_at
        reason = (
            "owner process gone"
            if _owner_gone(run.owner)
            else f"no heartbeat since {seen:%Y-%m-%dT%H:%M:%S}Z"
            if now - seen > stale
            else None
        )
        if reason is not None:
            run.status, run.finished_at = "aborted", now
            run.stats = {**(run.stats or {}), "aborted": reason}
            swept.append(run.id)
    session.flush()
    for run_id in swept:
        requeue(session, run_id, now)
    return swept


def _owner_gone(owner: str | None) -> bool:
    """Whether ``owner`` ("hostname:pid") is a process of this host that no longer runs."""
    host, _, pid = (owner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's: only its heartbeat can tell
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, someone else's
    stat = Path(f"/proc/{pid}/stat")  # a killed child its parent has not reaped yet
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def finish_run(
    session: Session, run_id: int, stats: dict[str, Any], status: str = "finished"
) -> None:
    run = session.get(CrawlRun, run_id)
    if run is None:
        raise NotFound(f"crawl run {run_id}")
    if status not in RUN_STATUSES:
        raise ValueError(f"a crawl run's status is one of {', '.join(RUN_STATUSES)}")
    run.status, run.stats, run.finished_at = status, stats, utcnow()


def latest_finished_run(session: Session, kind: str = "crawl") -> CrawlRun | None:
    """The latest run of ``kind`` that ended (finished, failed or aborted)."""
    return session.scalars(
        select(CrawlRun)
        .where(CrawlRun.kind == kind, CrawlRun.finished_at.is_not(None))
        .order_by(CrawlRun.finished_at.desc(), CrawlRun.id.desc())
        .limit(1)
    ).first()

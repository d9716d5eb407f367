"""What crawls keep in the store beside the sites' documents, as use cases: the record of each
run, the validators stored documents came with (for conditional GET), each site's crawl
memory (``sites.crawl_state``) and when it last changed. Functions take a Session and at most
flush(); the crawler owns the transaction."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from registry.models import CrawlRun, Document, Site
from registry.service import NotFound
from registry.store import utcnow

Validators = dict[str, tuple[str | None, str | None]]  # url -> (etag, last_modified)


def stored_validators(session: Session, hosts: list[str]) -> Validators:
    """url -> (etag, last_modified) for the stored documents of ``hosts`` that have either."""
    query = (select(Document.url, Document.etag, Document.last_modified)
             .join(Site, Document.site_id == Site.id)
             .where(Site.host.in_(hosts))
             .where((Document.etag.is_not(None)) | (Document.last_modified.is_not(None))))
    return {url: (etag, modified) for url, etag, modified in session.execute(query)}


def stored_urls(session: Session, hosts: list[str]) -> dict[str, list[str]]:
    """host -> the URLs of its stored documents: the crawl checks them against robots.txt."""
    query = (select(Site.host, Document.url).join(Site, Document.site_id == Site.id)
             .where(Site.host.in_(hosts)).order_by(Document.url))
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
        tzinfo=None)  # the store keeps naive UTC


def start_run(session: Session, kind: str, targets: list[str]) -> int:
    run = CrawlRun(kind=kind, status="running", started_at=utcnow(), targets=targets, stats={})
    session.add(run)
    session.flush()
    return run.id


def finish_run(session: Session, run_id: int, stats: dict, status: str = "finished") -> None:
    run = session.get(CrawlRun, run_id)
    if run is None:
        raise NotFound(f"crawl run {run_id}")
    run.status, run.stats, run.finished_at = status, stats, utcnow()


def latest_finished_run(session: Session, kind: str = "crawl") -> CrawlRun | None:
    """The latest run of ``kind`` that ended (finished or failed)."""
    return session.scalars(select(CrawlRun).where(CrawlRun.kind == kind,
                                                  CrawlRun.finished_at.is_not(None))
                           .order_by(CrawlRun.finished_at.desc(), CrawlRun.id.desc())
                           .limit(1)).first()

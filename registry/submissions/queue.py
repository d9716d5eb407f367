"""Submissions: someone asks for a host to be crawled (POST /submissions, `actiondex
submit`). Each is queued, then crawling, then done (with the actions found) or failed (with
the reason). One open submission per host: a duplicate gets the open one back (the API
shows another submitter only its host and status). Only a site's homepage URL is stored.

The crawl side: ``pending_hosts`` (the queue, oldest first), ``mark_crawling`` when a crawl
run takes hosts, ``settle`` in the same transaction as the host's promotion (so any crawl of
the host settles it), ``requeue`` for hosts a crawl never reached. Functions take a Session
and at most flush(); the caller owns the transaction. The address guard is the caller's
(the crawler's check_targets): registry code never judges addresses.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Site, Submission
from registry.model.statuses import OPEN
from registry.model.urls import key_host, site_key
from registry.placement import origin_of
from registry.submissions.limits import Limits, check_limits, registrable_domain

MAX_ATTEMPTS = 3  # crawls that may end without reaching the host before it is failed
MAX_LISTED = 1000  # actions listed on a done submission (a site keeps at most that many)
ROBOTS = "robots-disallowed"
NEVER_REACHED = "crawl-incomplete"


def submit(
    session: Session,
    url: str,
    now: datetime,
    *,
    client: str | None = None,
    limits: Limits | None = None,
) -> tuple[Submission, bool]:
    """(the open submission of ``url``'s host, whether it was created now). ``url`` is a
    target the address guard accepted; only its site's homepage is stored (``scheme://host
    [:port]/``: a crawl starts there, and a path or query may carry someone's secret);
    ``limits`` None (the operator's CLI): no limit. Raises registry.submissions.limits.Limited."""
    url = origin_of(url) + "/"
    host = site_key(url)
    existing = open_submission(session, host)
    if existing is not None:
        return existing, False
    domain = registrable_domain(key_host(host))
    if limits is not None:
        check_limits(session, client, domain, limits, now)
    row = Submission(
        id=secrets.token_urlsafe(18),
        url=url,
        host=host,
        domain=domain,
        client=client,
        status="queued",
        errors=[],
        actions=[],
        attempts=0,
        created_at=now,
    )
    try:
        with session.begin_nested():  # another replica may have queued the host meanwhile
            session.add(row)
    except IntegrityError:
        found = open_submission(session, host)
        if found is None:
            raise
        return found, False
    return row, True


def open_submission(session: Session, host: str) -> Submission | None:
    return session.scalars(
        select(Submission).where(Submission.host == host, Submission.status.in_(OPEN))
    ).first()


def is_queued(session: Session, host: str) -> bool:
    """Whether ``host`` has a submission waiting for its crawl."""
    found = open_submission(session, host)
    return found is not None and found.status == "queued"


def queued_among(session: Session, hosts: list[str]) -> set[str]:
    """Those of ``hosts`` that is_queued says have a submission waiting, in one query."""
    query = select(Submission.host).where(Submission.host.in_(hosts), Submission.status == "queued")
    return set(session.scalars(query))


def get_submission(session: Session, ident: str) -> Submission | None:
    return session.get(Submission, ident)


def pending_hosts(session: Session, limit: int) -> list[str]:
    """Hosts with a queued submission, oldest first: what a crawl should take first."""
    return [host for host, _ in pending(session, limit)]


def pending_targets(session: Session, limit: int) -> list[str]:
    """The submitted URLs of ``pending_hosts`` (they keep a port the host does not)."""
    return [target for _, target in pending(session, limit)]


def pending(session: Session, limit: int) -> list[tuple[str, str]]:
    """(host, submitted URL) of the queued submissions, oldest first."""
    query = (
        select(Submission.host, Submission.url)
        .where(Submission.status == "queued")
        .order_by(Submission.created_at, Submission.id)
        .limit(limit)
    )
    return [(host, url) for host, url in session.execute(query)]


def mark_crawling(session: Session, hosts: Sequence[str], run_id: int | None, now: datetime) -> int:
    """The queued submissions of ``hosts`` are being crawled by run ``run_id``."""
    if not hosts:
        return 0
    done = cast(
        "CursorResult[Any]",
        session.execute(  # an UPDATE: its result has a rowcount
            update(Submission)
            .where(Submission.host.in_(list(hosts)), Submission.status == "queued")
            .values(
                status="crawling", run_id=run_id, started_at=now, attempts=Submission.attempts + 1
            )
        ),
    )
    return int(done.rowcount or 0)


def settle(session: Session, host: str, errors: Sequence[str], now: datetime) -> int:
    """After the host's promotion, in its transaction: its open submission is done when the
    site has actions, else failed with the reason (robots.txt, the site's errors, nothing
    found). ``errors``: the crawl's diagnostic codes for the site."""
    rows = list(
        session.scalars(
            select(Submission).where(Submission.host == host, Submission.status.in_(OPEN))
        )
    )
    if not rows:
        return 0
    actions = _actions(session, host)
    reason = None if actions else _reason(session, host, errors)
    for row in rows:
        row.status = "done" if actions else "failed"
        row.actions, row.reason = actions, reason
        row.errors = sorted(set(errors))
        row.finished_at = now
        row.started_at = row.started_at or now
    return len(rows)


def requeue(session: Session, run_id: int, now: datetime) -> int:
    """The submissions run ``run_id`` took and did not settle (it ended before reaching the
    host, spooled it, or died and was swept): back to the queue, or failed once MAX_ATTEMPTS
    crawls have begun on them. Call it when a run ends, however it ends."""
    rows = session.scalars(
        select(Submission).where(Submission.status == "crawling", Submission.run_id == run_id)
    )
    count = 0
    for row in rows:
        count += 1
        if row.attempts < MAX_ATTEMPTS:
            row.status, row.started_at = "queued", None
            continue
        row.status, row.finished_at, row.errors = "failed", now, [NEVER_REACHED]
        row.reason = f"{row.attempts} crawls ended before reaching {row.host}"
    return count


def _actions(session: Session, host: str) -> list[dict[str, Any]]:
    query = (
        select(ActionRow.id, ActionRow.name, ActionRow.title)
        .join(Site, ActionRow.site_id == Site.id)
        .where(Site.host == host)
        .order_by(ActionRow.name, ActionRow.id)
        .limit(MAX_LISTED)
    )
    return [{"id": i, "name": n, "title": t} for i, n, t in session.execute(query)]


def _reason(session: Session, host: str, errors: Sequence[str]) -> str:
    if ROBOTS in errors:
        return f"robots.txt on {host} disallows actiondex: nothing was read"
    if errors:
        last = session.scalar(select(Site.last_error).where(Site.host == host))
        codes = ", ".join(sorted(set(errors)))
        return f"no actions found; the site's errors: {codes}" + (f" ({last})" if last else "")
    return (
        f"no actions found on {host}: no manifest, well-known file or Schema.org action "
        "the crawler reads"
    )

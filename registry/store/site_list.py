"""The list of sites, and the change feed mirrors follow.

Sites are listed oldest change first, by ``(updated_at, host)``: ``updated_at`` is when the
site's action set last changed (``changed_at``), else when it was first stored. A promotion
stamps ``changed_at`` with the time it runs, so a site that changes while a mirror pages
through the list moves behind the mirror's cursor and is listed again, once, with its new
version: nothing is missed and nothing is listed twice for the same change. The cursor is
``<updated_at in microseconds since 1970>~<host>`` (SITE_CURSOR_PATTERN, published in the OpenAPI
document): every token of that shape is a place in the order, so none that matches it is
refused; the host, unique, breaks ties. On
PostgreSQL a page is one range of the index ix_sites_change_order (migration 0005): 9 ms a
page of 100 at 200k sites, where sorting every site took 190 ms.

A promotion that commits more slowly than a mirror reads the feed (it stamps its time at the
start and commits at the end) can land behind a cursor already handed out: a mirror that must
see every change re-reads from a little before its cursor (``updated_since``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import exists, func, literal, select, tuple_
from sqlalchemy.orm import Session, defer

from registry.db.tables import SITE_CHANGE_ORDER, ActionRow, CrawlRun, Document, FlowRow, Site
from registry.model.bounds import MAX_PAGE
from registry.model.urls import key_host, site_key
from registry.placement import origin_of
from registry.store.keyset import BadCursor

# A cursor: a time in microseconds since 1970 (any integer of up to 18 digits: one past the
# ends of time reads as that end), "~", and the host as the sites table holds it (<= 255
# printable ASCII characters, an A-label or a bracketed IPv6 address; room for escapes).
SITE_CURSOR_PATTERN = r"^-?[0-9]{1,18}~[!-~]{1,1024}$"
_CURSOR = re.compile(SITE_CURSOR_PATTERN)
_EPOCH = datetime(1970, 1, 1)
RECENT_RUNS = 50  # how many of the latest crawl runs a site's "last crawl" is looked for in
_updated = SITE_CHANGE_ORDER


# What a listed site shows: not its crawl memory (crawl_state holds robots.txt, up to 512 KiB).
_LISTED = (
    Site.id,
    Site.host,
    Site.origin,
    Site.name,
    Site.description,
    Site.version,
    Site.changed_at,
)


def iso(moment: datetime | None) -> str | None:
    """A stored (naive UTC) time as ISO 8601 with its zone: "2026-12-01T12:00:00.5+00:00"."""
    return None if moment is None else moment.replace(tzinfo=UTC).isoformat()


def naive_utc(moment: datetime) -> datetime:
    """A time as the store keeps it: UTC without a zone (a naive time is taken as UTC)."""
    if moment.tzinfo is None:
        return moment
    try:
        return moment.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:  # within a day of year 1 or 9999: the ends of time will do
        return datetime.min if moment.year == 1 else datetime.max


def encode_cursor(updated_at: datetime, host: str) -> str:
    micros = (naive_utc(updated_at) - _EPOCH) // timedelta(microseconds=1)
    # A host is ASCII (registry.model.urls.site_of); one that is not still gets a token.
    return f"{micros}~{host.encode('ascii', 'backslashreplace').decode()}"


def decode_cursor(token: str) -> tuple[datetime, str]:
    if not _CURSOR.fullmatch(token):
        raise BadCursor("cursor must be a next_cursor or resume_cursor an earlier answer gave")
    micros, host = token.split("~", 1)
    try:
        return _EPOCH + timedelta(microseconds=int(micros)), host
    except OverflowError:  # past year 9999 or before year 1: that end of time
        return (datetime.max if micros[0] != "-" else datetime.min), host


def list_sites(
    session: Session,
    *,
    limit: int = 100,
    cursor: str | None = None,
    format: str | None = None,
    has_actions: bool | None = None,
    updated_since: datetime | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """One page of sites, oldest change first, and the cursor of the next page (None when this
    is the last). ``format``: only sites with a document in that format; ``has_actions``:
    only sites with (True) or without (False) actions; ``updated_since``: only sites changed
    at or after that time. BadCursor for a cursor not made here."""
    limit = max(1, min(limit, MAX_PAGE))
    query = select(*_LISTED, _updated.label("updated_at"))
    if cursor:
        moment, host = decode_cursor(cursor)
        # A row comparison: PostgreSQL reads it as one range of ix_sites_change_order.
        query = query.where(tuple_(_updated, Site.host) > tuple_(literal(moment), host))
    if updated_since is not None:
        query = query.where(_updated >= naive_utc(updated_since))
    if format is not None:
        query = query.where(exists().where(Document.site_id == Site.id, Document.format == format))
    if has_actions is not None:
        has = exists().where(ActionRow.site_id == Site.id)
        query = query.where(has if has_actions else ~has)
    rows = session.execute(query.order_by(_updated, Site.host).limit(limit + 1)).all()
    page = rows[:limit]
    items = _items(session, page)
    more = len(rows) > limit
    return items, (encode_cursor(page[-1].updated_at, page[-1].host) if more else None)


def cursor_after(items: list[dict[str, Any]], cursor: str | None) -> str | None:
    """Where a mirror resumes after this page: past its last site, or where it was."""
    if not items:
        return cursor
    last = items[-1]
    return encode_cursor(datetime.fromisoformat(last["updated_at"]), last["host"])


def _items(session: Session, page: Sequence[Any]) -> list[dict[str, Any]]:
    ids = [row.id for row in page]
    actions = _counts(session, ActionRow, ids)
    flows = _counts(session, FlowRow, ids)
    formats: dict[int, set[str]] = {}
    for site_id, fmt in session.execute(
        select(Document.site_id, Document.format).distinct().where(Document.site_id.in_(ids))
    ):
        formats.setdefault(site_id, set()).add(fmt or "unknown")
    return [
        {
            "host": row.host,
            "origin": row.origin,
            "name": row.name,
            "description": row.description,
            "version": row.version,
            "updated_at": iso(row.updated_at),
            "changed_at": iso(row.changed_at),
            "actions": actions.get(row.id, 0),
            "flows": flows.get(row.id, 0),
            "formats": sorted(formats.get(row.id, ())),
        }
        for row in page
    ]


def _counts(session: Session, model: Any, ids: list[int]) -> dict[int, int]:
    rows = session.execute(
        select(model.site_id, func.count()).where(model.site_id.in_(ids)).group_by(model.site_id)
    )
    return {site_id: n for site_id, n in rows}


def host_key(text: str) -> str | None:
    """The stored host a user means by ``text`` (any case, a URL, an IDN in Unicode or as
    A-labels, a trailing dot); None when it names no host."""
    if not text or len(text) > 300:
        return None
    text = text.strip()
    if "://" not in text and text.rstrip("/").endswith(":80"):
        text = f"http://{text}"  # "host:80" typed bare is http's default port, not https's
    try:
        return site_key(origin_of(text)) or None
    except ValueError:
        return None


def find_site(session: Session, text: str) -> Site | None:
    """The site ``text`` names by its key (registry.model.urls.site_key: ``host``, or
    ``host:port`` off the default port); a bare host also names the one site on another port
    of that host when there is exactly one (the demo web's sites live on a loopback port)."""
    key = host_key(text)
    if key is None:
        return None
    # Not its crawl memory: nothing shown reads it, and it can be large (robots.txt).
    query = select(Site).options(defer(Site.crawl_state))
    site = session.scalars(query.where(Site.host == key)).one_or_none()
    if site is not None or key_host(key) != key:
        return site
    on_ports = session.scalars(
        query.where(Site.host.startswith(f"{key}:", autoescape=True)).limit(2)
    ).all()
    return on_ports[0] if len(on_ports) == 1 else None


def run_summary(run: CrawlRun, host: str | None = None) -> dict[str, Any]:
    """A crawl run's record without its per-site lists (a large crawl names thousands);
    with ``host``, the diagnostic codes that run recorded for that site."""
    stats = run.stats or {}
    summary = {
        "id": run.id,
        "kind": run.kind,
        "status": run.status,
        "started_at": iso(run.started_at),
        "finished_at": iso(run.finished_at),
        "targets": len(run.targets or []),
        "stats": {
            key: value
            for key, value in stats.items()
            if key not in ("site_errors", "changed_sites", "per_site")
        },
    }
    if host is not None:
        errors = stats.get("site_errors")
        summary["site_errors"] = (errors.get(host) if isinstance(errors, dict) else None) or []
    return summary


def last_run(session: Session, host: str) -> dict[str, Any] | None:
    """The latest of the recent crawl runs that named ``host`` among its targets."""
    runs = session.scalars(
        select(CrawlRun).order_by(CrawlRun.started_at.desc(), CrawlRun.id.desc()).limit(RECENT_RUNS)
    )
    for run in runs:
        if any(host_key(str(target)) == host for target in run.targets or []):
            return run_summary(run, host)
    return None

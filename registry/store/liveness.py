"""Liveness probes in the store: which endpoints of a site to probe, what they answered, when
to ask again (docs/RELIABILITY.md 54). Functions take a Session and at most flush().

The probes themselves are crawler/probes; the table is ``endpoint_liveness`` (migration 0014).
A probe that changes an endpoint's status gives its site a new store-clock number (not a new
version: its action set is the same), so the index, which shows ``liveness`` on results and
filters ``live=true``, reads the site again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from registry.db.clock import next_change
from registry.db.tables import ActionRow, Document, EndpointLiveness, Site
from registry.formats import probe_kind
from registry.model.liveness import ProbeOutcome, ProbeTarget, iso

MAX_PER_SITE = 32  # endpoints of one site probed at most (a registry page lists hundreds)


def probe_targets(session: Session, hosts: Sequence[str]) -> list[ProbeTarget]:
    """The endpoints the stored documents of ``hosts`` list that speak a protocol with a
    read-only handshake: each once per site, at most MAX_PER_SITE a site."""
    query = (
        select(Site.host, Document.url, Document.format, ActionRow.endpoint)
        .join(Document, Document.site_id == Site.id)
        .outerjoin(ActionRow, ActionRow.document_id == Document.id)
        .where(Site.host.in_(hosts), Site.removed_at.is_(None))
        .order_by(Site.host, Document.url, ActionRow.name)
    )
    found: dict[tuple[str, str], ProbeTarget] = {}
    per_site: dict[str, int] = {}
    for host, url, fmt, endpoint in session.execute(query):
        target = _target(host, url, fmt or "", endpoint)
        if target is None or (host, target.endpoint) in found:
            continue
        if per_site.get(host, 0) < MAX_PER_SITE:
            found[(host, target.endpoint)] = target
            per_site[host] = per_site.get(host, 0) + 1
    return list(found.values())


def _target(host: str, url: str, fmt: str, endpoint: str | None) -> ProbeTarget | None:
    kind = probe_kind(fmt)
    if kind == "handshake":  # the server at the actions' endpoint
        if not endpoint or "{" in endpoint or not endpoint.startswith(("http://", "https://")):
            return None
        return ProbeTarget(host, endpoint, endpoint, fmt, kind)
    if kind == "card":  # the card, for the endpoint its actions name
        return ProbeTarget(host, endpoint or url, url, fmt, kind)
    if kind == "catalog":  # the catalog itself; its entries are other endpoints
        return ProbeTarget(host, url, url, fmt, kind)
    return None


def due_targets(
    session: Session, now: datetime, limit: int, only: Sequence[str] | None = None
) -> list[ProbeTarget]:
    """Endpoints probed before whose next probe is due, the most overdue first."""
    query = (
        select(Site.host, EndpointLiveness)
        .join(Site, Site.id == EndpointLiveness.site_id)
        .where(EndpointLiveness.next_probe_at <= now, Site.removed_at.is_(None))
        .order_by(EndpointLiveness.next_probe_at, EndpointLiveness.id)
        .limit(limit)
    )
    if only is not None:
        query = query.where(Site.host.in_(only))
    targets = []
    for host, row in session.execute(query):
        kind = probe_kind(row.protocol)
        if kind is not None:
            targets.append(ProbeTarget(host, row.endpoint, row.probe_url, row.protocol, kind))
    return targets


def record(
    session: Session,
    outcomes: Iterable[ProbeOutcome],
    complete: Sequence[str] = (),
    forget: Iterable[ProbeTarget] = (),
) -> list[str]:
    """Store what the probes found; for the hosts in ``complete`` (every endpoint of theirs
    was probed just now) forget endpoints they no longer list, and forget the endpoints in
    ``forget`` (robots.txt now disallows them). Returns the hosts whose endpoints' statuses
    changed: they are renumbered last (registry.db.clock)."""
    outcomes, forget = list(outcomes), list(forget)
    hosts = {o.target.host for o in outcomes} | set(complete) | {t.host for t in forget}
    sites = {s.host: s for s in session.scalars(select(Site).where(Site.host.in_(hosts)))}
    rows = {
        (r.site_id, r.endpoint): r
        for r in session.scalars(
            select(EndpointLiveness).where(
                EndpointLiveness.site_id.in_([s.id for s in sites.values()])
            )
        )
    }
    changed: set[str] = set()
    seen: set[tuple[int, str]] = set()
    for outcome in outcomes:
        site = sites.get(outcome.target.host)
        if site is None:
            continue
        key = (site.id, outcome.target.endpoint)
        seen.add(key)
        row = rows.get(key)
        if row is None:
            row = EndpointLiveness(site_id=site.id, endpoint=outcome.target.endpoint)
            session.add(row)
            rows[key] = row
        if row.status != outcome.status:
            changed.add(site.host)
        _fill(row, outcome)
    ids = {site.id for host, site in sites.items() if host in complete}
    gone = {k for k in rows if k[0] in ids and k not in seen}
    gone |= {(sites[t.host].id, t.endpoint) for t in forget if t.host in sites} & rows.keys()
    hosts_by_id = {site.id: host for host, site in sites.items()}
    for site_id, endpoint in sorted(gone):
        changed.add(hosts_by_id[site_id])
        session.execute(
            delete(EndpointLiveness).where(
                EndpointLiveness.site_id == site_id, EndpointLiveness.endpoint == endpoint
            )
        )
    session.flush()
    for host in sorted(changed):  # last: the clock's lock is held until the commit
        sites[host].change_seq = next_change(session)
    session.flush()
    return sorted(changed)


def _fill(row: EndpointLiveness, outcome: ProbeOutcome) -> None:
    row.probe_url = outcome.target.probe_url
    row.protocol = outcome.target.format
    row.status = outcome.status
    row.checked_at = outcome.checked_at
    row.latency_ms = outcome.latency_ms
    row.http_status = outcome.http_status
    row.detail = outcome.detail
    row.next_probe_at = outcome.next_probe()


def public(row: EndpointLiveness) -> dict[str, Any]:
    """An action's ``liveness`` (registry.model.liveness.Liveness)."""
    return {"status": row.status, "checked_at": iso(row.checked_at), "latency_ms": row.latency_ms}


def site_endpoints(session: Session, site_id: int) -> list[dict[str, Any]]:
    """Every probed endpoint of a site, as GET /sites/{host} lists them."""
    query = (
        select(EndpointLiveness)
        .where(EndpointLiveness.site_id == site_id)
        .order_by(EndpointLiveness.endpoint)
    )
    return [
        {
            "endpoint": row.endpoint,
            "probe_url": row.probe_url,
            "format": row.protocol,
            **public(row),
            "http_status": row.http_status,
            "found": row.detail,
        }
        for row in session.scalars(query)
    ]


def endpoint_liveness(
    session: Session, site_id: int, endpoint: str | None
) -> dict[str, Any] | None:
    """The ``liveness`` of one action's endpoint, if it was probed."""
    if not endpoint:
        return None
    row = session.scalar(
        select(EndpointLiveness).where(
            EndpointLiveness.site_id == site_id, EndpointLiveness.endpoint == endpoint
        )
    )
    return None if row is None else public(row)


def site_origins(session: Session, hosts: Iterable[str]) -> dict[str, str]:
    """host -> the origin it was crawled at, for the stored sites among ``hosts``."""
    query = select(Site.host, Site.origin).where(Site.host.in_(list(hosts)))
    return {host: origin for host, origin in session.execute(query)}

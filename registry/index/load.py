"""Loading store rows for the index: plain tuples (no ORM objects), a batch of sites at a time.

At a million actions, loading is most of the build. An action's own part of its document is
read as stored (registry.index.parts); only rows stored without it, or under another
INDEX_VERSION, are worked out here from their columns. JSON schemas come as their stored text
(decoding them in SQLAlchemy cost a third of the build, and the payload wants the text).
Queries run on the session's Core connection: ORM result rows cost 2 us more apiece.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, Text, cast, or_, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document, EndpointLiveness, FlowRow, Site
from registry.index.documents import SiteInfo, action_document, flow_document, steps_of
from registry.index.parts import INDEX_VERSION, ActionParts, action_parts
from registry.model.liveness import iso
from registry.model.results import PAYLOAD_JSON

SITE_BATCH = 500  # sites per query while loading rows


def site_documents(session: Session, hosts: Sequence[str]) -> Iterator[str]:
    """Every action and flow document of the sites ``hosts``, a batch of sites at a time."""
    for start in range(0, len(hosts), SITE_BATCH):
        chunk = hosts[start : start + SITE_BATCH]
        batch = session.scalars(select(Site).where(Site.host.in_(chunk)))
        yield from _batch_documents(
            session.connection(), {site.id: SiteInfo.of(site) for site in batch}
        )


def _columns(table: Any, names: str) -> list[Any]:
    return [
        cast(table.c[n], Text).label(n) if n in PAYLOAD_JSON else table.c[n] for n in names.split()
    ]


_STORED_COLUMNS = _columns(
    ActionRow.__table__,
    "site_id name index_version index_fields index_text payload about endpoint",
)
_ACTION_COLUMNS = _columns(
    ActionRow.__table__,
    "id site_id name title description about type "
    "effect method endpoint input_schema output_schema scope auth cost "
    "same_origin verified",
)
_FLOW_COLUMNS = _columns(
    FlowRow.__table__, "id site_id name title description effect input_schema steps auth scope cost"
)


def _batch_documents(conn: Connection, sites: dict[int, SiteInfo]) -> Iterator[str]:
    flows = conn.execute(
        select(*_FLOW_COLUMNS, Document.url, Document.format)
        .join(Document, FlowRow.document_id == Document.id)
        .where(FlowRow.site_id.in_(sites))
        .order_by(FlowRow.id)
    ).all()
    # An action is also found by the titles of the flows it is a step of.
    flow_titles: dict[tuple[int, str], list[str]] = defaultdict(list)
    for flow in flows:
        for step in steps_of(flow):
            flow_titles[(flow.site_id, step["action"])].append(flow.title)
        yield flow_document(sites[flow.site_id], flow, _source(flow.url, flow.format))
    live = _liveness(conn, sites)
    for site_id, name, endpoint, parts in _action_parts(conn, sites):
        found = live.get((site_id, endpoint)) if endpoint else None
        yield action_document(sites[site_id], parts, flow_titles.get((site_id, name), []), found)


def _liveness(conn: Connection, sites: dict[int, SiteInfo]) -> dict[tuple[int, str], Any]:
    """(site id, endpoint) -> its last probe's public part, for the batch's sites."""
    query = select(
        EndpointLiveness.site_id,
        EndpointLiveness.endpoint,
        EndpointLiveness.status,
        EndpointLiveness.checked_at,
        EndpointLiveness.latency_ms,
    ).where(EndpointLiveness.site_id.in_(sites))
    return {
        (site_id, endpoint): {"status": status, "checked_at": iso(at), "latency_ms": ms}
        for site_id, endpoint, status, at, ms in conn.execute(query)
    }


def _action_parts(
    conn: Connection, sites: dict[int, SiteInfo]
) -> Iterator[tuple[int, str, str | None, ActionParts]]:
    """(site id, action name, its own part) of every action of ``sites``: as stored where
    it is current, else worked out from its columns."""
    in_sites = ActionRow.site_id.in_(sites)
    # In the order of the (site_id, name) index: no sort of the batch's rows (2x slower).
    in_order = (ActionRow.site_id, ActionRow.name)
    stale = False
    stored = conn.execute(select(*_STORED_COLUMNS).where(in_sites).order_by(*in_order))
    for site_id, name, version, fields, text, payload, about, endpoint in stored:
        if version == INDEX_VERSION:
            yield site_id, name, endpoint, ActionParts(fields, text, payload, about or "")
        else:
            stale = True
    if stale:  # not the usual case: a second pass over the batch's rows
        yield from stale_action_parts(conn, sites)


def stale_action_parts(
    conn: Connection, sites: dict[int, SiteInfo]
) -> Iterator[tuple[int, str, str | None, ActionParts]]:
    """``_action_parts`` of the actions of ``sites`` stored without a current part, worked
    out from their columns."""
    in_sites = ActionRow.site_id.in_(sites)
    in_order = (ActionRow.site_id, ActionRow.name)
    current = ActionRow.index_version == INDEX_VERSION
    rows = conn.execute(
        select(*_ACTION_COLUMNS, Document.url, Document.format)
        .join(Document, ActionRow.document_id == Document.id)
        .where(in_sites, or_(ActionRow.index_version.is_(None), ~current))
        .order_by(*in_order)
    )
    for row in rows:
        site = sites[row.site_id]
        texts = {name: getattr(row, name) for name in PAYLOAD_JSON}
        parts = action_parts(row, texts, site.host, _source(row.url, row.format), site.about)
        yield row.site_id, row.name, row.endpoint, parts


def _source(url: str, fmt: str | None) -> dict[str, str]:
    return {"url": url, "format": fmt or "unknown"}

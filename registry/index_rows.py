"""Loading store rows for the index: plain tuples (no ORM objects), a batch of sites at a time.

At a million actions, loading is most of the build: JSON schemas come as their stored text
(decoding them in SQLAlchemy cost a third of the build, and the payload wants the text).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from registry.index_docs import SiteInfo, action_document, flow_document, steps_of
from registry.models import ActionRow, Document, FlowRow, Site

SITE_BATCH = 500  # sites per query while loading rows


def site_documents(session: Session, hosts: Sequence[str]) -> Iterator[Any]:
    """Every action and flow document of the sites ``hosts``, a batch of sites at a time."""
    for start in range(0, len(hosts), SITE_BATCH):
        chunk = hosts[start : start + SITE_BATCH]
        batch = session.scalars(select(Site).where(Site.host.in_(chunk)))
        yield from _batch_documents(session, {site.id: SiteInfo.of(site) for site in batch})


def _columns(table: Any, names: str) -> list[Any]:
    return [cast(table.c[n], Text).label(n) if n == "input_schema" else table.c[n]
            for n in names.split()]


_ACTION_COLUMNS = _columns(ActionRow.__table__, "id site_id name title description type effect "
                           "method endpoint input_schema auth same_origin")
_FLOW_COLUMNS = _columns(FlowRow.__table__, "id site_id name title description effect "
                         "input_schema steps")


def _batch_documents(session: Session, sites: dict[int, SiteInfo]) -> Iterator[Any]:
    flows = session.execute(
        select(*_FLOW_COLUMNS, Document.url, Document.format)
        .join(Document, FlowRow.document_id == Document.id)
        .where(FlowRow.site_id.in_(sites)).order_by(FlowRow.id)
    ).all()
    # An action is also found by the titles of the flows it is a step of.
    flow_titles: dict[tuple[int, str], list[str]] = defaultdict(list)
    for flow in flows:
        for step in steps_of(flow):
            flow_titles[(flow.site_id, step["action"])].append(flow.title)
        yield flow_document(sites[flow.site_id], flow, _source(flow.url, flow.format))
    actions = session.execute(
        select(*_ACTION_COLUMNS, Document.url, Document.format)
        .join(Document, ActionRow.document_id == Document.id)
        .where(ActionRow.site_id.in_(sites)).order_by(ActionRow.id)
    )
    for action in actions:
        titles = flow_titles.get((action.site_id, action.name), [])
        yield action_document(sites[action.site_id], action, _source(action.url, action.format),
                              titles)


def _source(url: str, fmt: str | None) -> dict[str, str]:
    return {"url": url, "format": fmt or "unknown"}

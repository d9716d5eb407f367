"""The store's actions and flows as one table of entries (``ENTRIES``: a UNION ALL of the two),
for List, Explore and Retrieve: columns only (a row's index text and payload are large, and
an ORM object per row cost List and Explore most of their time). A flow has no method, type
or endpoint, its auth is ``unknown`` (as GET /find shows it), and its steps come as JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Select, String, Text, cast, literal_column, null, select, union_all
from sqlalchemy.orm import Session

from registry.ard import entries
from registry.db.tables import ActionRow, Document, FlowRow, Site
from registry.index.documents import steps_of


def _kind(name: str) -> Any:
    return literal_column(f"'{name}'", String).label("kind")


# Where a row was read: its site and document.
_PLACE = (Site.host, Site.created_at, Document.url, Document.format, Document.fetched_at)


_ACTIONS = select(
    _kind("action"),
    ActionRow.id,
    ActionRow.name,
    ActionRow.title,
    ActionRow.description,
    ActionRow.effect,
    ActionRow.method,
    ActionRow.type,
    ActionRow.endpoint,
    ActionRow.auth,
    cast(null(), Text).label("steps"),
    *_PLACE,
).select_from(
    ActionRow.__table__.join(Site.__table__, Site.id == ActionRow.site_id).join(
        Document.__table__, Document.id == ActionRow.document_id
    )
)
_FLOWS = select(
    _kind("flow"),
    FlowRow.id,
    FlowRow.name,
    FlowRow.title,
    FlowRow.description,
    FlowRow.effect,
    cast(null(), String).label("method"),
    cast(null(), String).label("type"),
    cast(null(), String).label("endpoint"),
    literal_column("'unknown'", String).label("auth"),
    cast(FlowRow.steps, Text).label("steps"),
    *_PLACE,
).select_from(
    FlowRow.__table__.join(Site.__table__, Site.id == FlowRow.site_id).join(
        Document.__table__, Document.id == FlowRow.document_id
    )
)
ENTRIES = union_all(_ACTIONS, _FLOWS).subquery("entries")
E = ENTRIES.c


def rows(conditions: list[Any]) -> Select[Any]:
    """The actions and flows (with their site and document) matching ``conditions`` (on
    ``E``'s columns)."""
    return select(ENTRIES).where(*conditions)


def entry_fact(session: Session, kind: str, host: str, name: str) -> dict[str, Any] | None:
    """The facts of the action or flow ``name`` of ``host``, or None."""
    row = session.execute(
        rows([E.kind == kind, E.host == host, E.name == name]).order_by(E.id).limit(1)
    ).first()
    return None if row is None else row_fact(row)


def row_fact(row: Any) -> dict[str, Any]:
    """The facts of one row of ``rows``."""
    steps = steps_of(_Steps(json.loads(row.steps))) if row.steps else []
    return entries.facts(
        {
            "id": row.id,
            "kind": row.kind,
            "site": row.host,
            "name": row.name,
            "title": row.title,
            "description": row.description,
            "effect": row.effect,
            "method": row.method,
            "type": row.type,
            "endpoint": row.endpoint,
            "auth": row.auth,
            "steps": steps,
            "source": {"url": row.url, "format": row.format},
        }
    )


class _Steps:
    """What ``steps_of`` reads of a flow row."""

    def __init__(self, steps: Any) -> None:
        self.steps = steps if isinstance(steps, list) else []

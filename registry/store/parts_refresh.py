"""The stored index parts (registry.index.parts) of actions stored before they existed or
under another INDEX_VERSION, worked out once after such an upgrade. Like the service, these
take a Session and only flush; the caller owns the transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document, Site
from registry.index.parts import INDEX_VERSION, site_words
from registry.store.rows import with_index_parts


def _stale_parts() -> Any:
    return or_(ActionRow.index_version.is_(None), ActionRow.index_version != INDEX_VERSION)


def stale_index_parts(session: Session) -> int:
    """How many actions ``refresh_index_parts`` would work out."""
    return session.scalar(select(func.count()).where(_stale_parts())) or 0


def refresh_index_parts(session: Session, batch: int = 1000) -> int:
    """Work out the stored index parts (registry.index.parts) of actions stored before they
    existed or under another INDEX_VERSION; returns how many. Until then every index build
    works them out again, at a third of its speed. Run once after such an upgrade."""
    done = 0
    while rows := session.scalars(select(ActionRow).where(_stale_parts()).limit(batch)).all():
        docs = {
            d.id: d
            for d in session.scalars(
                select(Document).where(Document.id.in_({r.document_id for r in rows}))
            )
        }
        sites = {
            site.id: site
            for site in session.scalars(select(Site).where(Site.id.in_({r.site_id for r in rows})))
        }
        for row in rows:
            site = sites[row.site_id]
            with_index_parts(
                row,
                site.host,
                docs[row.document_id],
                site_words(site.name, site.description, site.about),
            )
        session.flush()  # the rows are current now: the next query moves on
        done += len(rows)
    return done

"""Row-level helpers for the service: manifest -> rows, site upsert, time."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from registry.db.clock import next_change
from registry.db.tables import ActionRow, Document, FlowRow, Site
from registry.index.parts import INDEX_VERSION, action_parts, json_texts, site_words
from registry.model.schemas import Manifest, stable_id


def utcnow() -> datetime:
    """Naive UTC: SQLite keeps no time zone, so every stored time is UTC without one."""
    return datetime.now(UTC).replace(tzinfo=None)


def get_or_create_site(session: Session, host: str, origin: str, now: datetime) -> Site:
    """The site's row; inserted if new (race-safe via ON CONFLICT DO NOTHING).

    A known site is only read here, so an unchanged recrawl issues no write at all; the
    service locks the row (lock_site) once it knows it will change something.
    """
    return site_row(session, host, origin, now)[0]


def site_row(session: Session, host: str, origin: str, now: datetime) -> tuple[Site, bool]:
    """``get_or_create_site``, and whether this transaction inserted the row: then nothing
    else can hold or see it until the commit (PostgreSQL's other inserts of the host wait on
    its row lock; SQLite's write lock is database-wide), and it has no documents, actions or
    flows yet."""
    site = session.scalars(select(Site).where(Site.host == host)).one_or_none()
    if site is not None:
        return site, False
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    stmt = insert(Site).values(host=host, origin=origin, version=0, created_at=now)
    returning = stmt.on_conflict_do_nothing(index_elements=["host"]).returning(Site.id)
    inserted = session.execute(returning).first() is not None  # none: another's insert was first
    return session.scalars(select(Site).where(Site.host == host)).one(), inserted


def lock_site(session: Session, site: Site) -> None:
    """Serialise two crawlers promoting one site on PostgreSQL. SQLite ignores FOR UPDATE: its
    write lock is database-wide already."""
    session.refresh(site, with_for_update=True)


def mark_changed(session: Session, site: Site, now: datetime) -> None:
    """Record that the site's action set changed: its version, when, and the store clock's
    next number (registry.db.clock), which the index follows. Every code path that changes a
    site's actions, documents or flows calls this once, as its LAST statement: the number's
    lock serialises changes until the commit."""
    site.version += 1
    site.changed_at = now
    site.change_seq = next_change(session)


def _doc_key(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def action_rows(site: Site, doc: Document, manifest: Manifest) -> list[ActionRow]:
    rows, seen = [], set()
    for action in manifest.actions:
        if action.name in seen:  # dedupe keys before insert: ids must be unique
            continue
        seen.add(action.name)
        ident = stable_id(site.host, manifest.format, f"{_doc_key(doc.url)}#{action.name}")
        row = ActionRow(id=ident, site_id=site.id, document_id=doc.id, **action.model_dump())
        about = (
            manifest.site_about if manifest.site_description or manifest.site_about else site.about
        )  # as registry.store.promotion._refresh_site_text will keep it
        with_index_parts(
            row,
            site.host,
            doc,
            site_words(
                manifest.site_name or site.name,
                manifest.site_description or site.description,
                about,
            ),
        )
        rows.append(row)
    return rows


def with_index_parts(row: ActionRow, host: str, doc: Document, about: str) -> None:
    """Fill the row's index columns (registry.index.parts): a rebuild then only streams them.
    ``about``: the site's name and description (``index_parts.site_words``)."""
    source = {"url": doc.url, "format": doc.format or "unknown"}
    parts = action_parts(row, json_texts(row), host, source, about)
    row.index_fields, row.index_text, row.payload = (
        parts.index_fields,
        parts.index_text,
        parts.payload,
    )
    row.index_version = INDEX_VERSION


def flow_rows(site: Site, doc: Document, manifest: Manifest) -> list[FlowRow]:
    """A step without a title of its own gets its action's: a result lists its steps by
    title, for the agent reading it."""
    rows, seen = [], set()
    titles = {action.name: action.title for action in manifest.actions}
    for flow in manifest.flows:
        if flow.name in seen:
            continue
        seen.add(flow.name)
        ident = stable_id(site.host, manifest.format, f"{_doc_key(doc.url)}#flow:{flow.name}")
        rows.append(
            FlowRow(
                id=ident,
                site_id=site.id,
                document_id=doc.id,
                name=flow.name,
                title=flow.title,
                description=flow.description,
                effect=flow.effect,
                input_schema=flow.input_schema,
                auth=flow.auth,
                scope=flow.scope,
                cost=flow.cost,
                steps=[
                    s.model_dump() | {"title": s.title or titles.get(s.action)} for s in flow.steps
                ],
            )
        )
    return rows

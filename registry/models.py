"""SQLAlchemy tables. The schema is made only by Alembic migrations (migrations/versions)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Stable constraint names, so autogenerate and downgrades agree across databases.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: Json, list[Any]: Json}


class Site(Base):
    __tablename__ = "sites"

    id: Mapped[int] = mapped_column(primary_key=True)
    host: Mapped[str] = mapped_column(String(255), unique=True)
    origin: Mapped[str] = mapped_column(String(300))  # scheme://host[:port]
    name: Mapped[str | None] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    # Bumped on every promotion that changed the action set; the index follows it.
    version: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime]
    changed_at: Mapped[datetime | None]
    last_error_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    # The crawler's memory of the site between runs (robots.txt for 24 h, the catch-all probe,
    # paths that answered 404): see crawler/memory.py. Not part of the action set.
    crawl_state: Mapped[dict[str, Any] | None]
    # The recrawl schedule (registry/schedule.py): when the site is due next, the interval
    # that led there (seconds), failed crawls in a row, when it was last crawled. Migration 0009.
    next_crawl_at: Mapped[datetime | None] = mapped_column(index=True)
    crawl_interval: Mapped[int | None]
    crawl_failures: Mapped[int] = mapped_column(default=0, server_default="0")
    last_crawled_at: Mapped[datetime | None]

    documents: Mapped[list[Document]] = relationship(back_populates="site")


class Document(Base):
    __tablename__ = "documents"
    # Per site: two sites may read the same cross-host document (a shared OpenAPI).
    __table_args__ = (UniqueConstraint("site_id", "url"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    format: Mapped[str | None] = mapped_column(String(64), index=True)  # ARD asks by format
    status: Mapped[int]
    content_hash: Mapped[str | None] = mapped_column(String(64))
    raw: Mapped[bytes | None] = mapped_column(LargeBinary)
    content_type: Mapped[str | None] = mapped_column(String(200))
    etag: Mapped[str | None] = mapped_column(String(500))
    last_modified: Mapped[str | None] = mapped_column(String(100))
    fetched_at: Mapped[datetime]
    normaliser_version: Mapped[int] = mapped_column(default=1)
    diagnostics: Mapped[list[Any]] = mapped_column(default=list)
    # Removal needs evidence: consecutive 404/410 answers and when they began.
    missing_count: Mapped[int] = mapped_column(default=0)
    missing_since: Mapped[datetime | None]

    site: Mapped[Site] = relationship(back_populates="documents")


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (Index("ix_actions_site_name", "site_id", "name"),)

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(320))
    description: Mapped[str] = mapped_column(Text, default="")
    type: Mapped[str | None] = mapped_column(String(100))
    effect: Mapped[str] = mapped_column(String(10), index=True)  # counted by /stats, ARD Explore
    method: Mapped[str | None] = mapped_column(String(10))
    endpoint: Mapped[str | None] = mapped_column(String(2048))
    input_schema: Mapped[dict[str, Any]]
    output_schema: Mapped[dict[str, Any] | None]
    scope: Mapped[str | None] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(10), default="unknown")
    cost: Mapped[dict[str, Any] | None]
    same_origin: Mapped[bool] = mapped_column(default=True)
    # The action's own part of its index document (registry.index.parts), worked out when it
    # is stored so an index build only streams it; derived, like the index. Rows whose
    # index_version is not the code's (or NULL) are worked out again at build time. Code that
    # changes a stored row must call registry.store.with_index_parts again.
    index_fields: Mapped[str | None] = mapped_column(Text)
    index_text: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[str | None] = mapped_column(Text)
    index_version: Mapped[int | None]


class FlowRow(Base):
    __tablename__ = "flows"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(320))
    description: Mapped[str] = mapped_column(Text, default="")
    effect: Mapped[str] = mapped_column(String(10))
    input_schema: Mapped[dict[str, Any]]
    steps: Mapped[list[Any]]


class CrawlRun(Base):
    __tablename__ = "crawl_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))  # crawl | ingest
    # running | finished | failed | aborted (registry.crawl_state.sweep_abandoned_runs)
    status: Mapped[str] = mapped_column(String(20), index=True)
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    targets: Mapped[list[Any]]
    stats: Mapped[dict[str, Any]] = mapped_column(default=dict)
    heartbeat_at: Mapped[datetime | None]  # touched while the run is alive
    owner: Mapped[str | None] = mapped_column(String(300))  # "hostname:pid"


# GET /sites' order (registry.listing): when the action set last changed, else when the site
# was first stored; the host breaks ties. Migration 0005.
SITE_CHANGE_ORDER = func.coalesce(Site.changed_at, Site.created_at)
# PostgreSQL only: SQLite cannot reflect an expression index, so no drift check could see it.
Index("ix_sites_change_order", SITE_CHANGE_ORDER, Site.host).ddl_if(dialect="postgresql")
POSTGRESQL_ONLY = frozenset({"ix_sites_change_order"})  # what migrations/env.py compares there

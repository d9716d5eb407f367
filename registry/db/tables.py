"""SQLAlchemy tables. The schema is made only by Alembic migrations (migrations/versions)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from registry.model.bounds import ID_CHARS

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
    about: Mapped[str | None] = mapped_column(Text)  # index-only (Manifest.site_about); 0012
    # Bumped on every promotion that changed the action set; the index follows it.
    version: Mapped[int] = mapped_column(default=0)
    # The store clock's number at the site's last change (registry.db.clock): numbers are given
    # in commit order, so an index that has read every site up to N reads only those above it.
    change_seq: Mapped[int | None] = mapped_column(BigInteger, index=True)
    created_at: Mapped[datetime]
    changed_at: Mapped[datetime | None]
    last_error_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    # The crawler's memory of the site between runs (robots.txt for 24 h, the catch-all probe,
    # paths that answered 404): see crawler/memory.py. Not part of the action set.
    crawl_state: Mapped[dict[str, Any] | None]
    # Set by `actiondex sites remove`: its documents, actions and flows are gone, the row and
    # its history stay; schedules skip it; an explicit crawl or ingest clears it (migration 0008).
    removed_at: Mapped[datetime | None]
    # The recrawl schedule (registry/store/schedule.py): when the site is due next, the interval
    # that led there (seconds), failed crawls in a row, when it was last crawled. Migration 0009.
    next_crawl_at: Mapped[datetime | None] = mapped_column(index=True)
    crawl_interval: Mapped[int | None]
    crawl_failures: Mapped[int] = mapped_column(default=0, server_default="0")
    last_crawled_at: Mapped[datetime | None]

    documents: Mapped[list[Document]] = relationship(back_populates="site")


class StoreClock(Base):
    """One row: the last change number given (registry.db.clock)."""

    __tablename__ = "store_clock"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    seq: Mapped[int] = mapped_column(BigInteger)


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
    endpoints: Mapped[dict[str, Any] | None]  # Manifest.endpoints; migration 0014
    # Removal needs evidence: consecutive 404/410 answers and when they began.
    missing_count: Mapped[int] = mapped_column(default=0)
    missing_since: Mapped[datetime | None]

    site: Mapped[Site] = relationship(back_populates="documents")


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (Index("ix_actions_site_name", "site_id", "name"),)

    id: Mapped[str] = mapped_column(String(ID_CHARS), primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(320))
    description: Mapped[str] = mapped_column(Text, default="")
    about: Mapped[str | None] = mapped_column(Text)  # index-only (Action.about); migration 0012
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
    # The endpoint's owner is the site's (Action.verified); migration 0014.
    verified: Mapped[bool] = mapped_column(default=True, server_default=text("true"))
    # The action's own part of its index document (registry.index.parts), worked out when it
    # is stored so an index build only streams it; derived, like the index. Rows whose
    # index_version is not the code's (or NULL) are worked out again at build time. Code that
    # changes a stored row must call registry.store.rows.with_index_parts again.
    index_fields: Mapped[str | None] = mapped_column(Text)
    index_text: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[str | None] = mapped_column(Text)
    index_version: Mapped[int | None]


class FlowRow(Base):
    __tablename__ = "flows"

    id: Mapped[str] = mapped_column(String(ID_CHARS), primary_key=True)
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
    # What running it needs and costs, from its steps (registry.model.flow_terms); 0014
    auth: Mapped[str] = mapped_column(String(10), default="unknown", server_default="unknown")
    scope: Mapped[str | None] = mapped_column(String(200))
    cost: Mapped[dict[str, Any] | None]


class CrawlRun(Base):
    __tablename__ = "crawl_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))  # crawl | ingest
    # running | finished | failed | aborted (registry.store.crawl_state.sweep_abandoned_runs)
    status: Mapped[str] = mapped_column(String(20), index=True)
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    targets: Mapped[list[Any]]
    stats: Mapped[dict[str, Any]] = mapped_column(default=dict)
    heartbeat_at: Mapped[datetime | None]  # touched while the run is alive
    owner: Mapped[str | None] = mapped_column(String(300))  # "hostname:pid"


class SiteHistory(Base):
    """One change of a site's action set: the diff against the set before it
    (registry/store/history.py). Migration 0008."""

    __tablename__ = "site_history"
    __table_args__ = (Index("ix_site_history_site_id_id", "site_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"))
    version: Mapped[int]  # the sites.version this change produced
    at: Mapped[datetime]
    reason: Mapped[str] = mapped_column(String(20))  # crawl|ingest|tombstone|robots|removed
    # The crawl run that made it, when known; a run's record may be pruned, the entry stays.
    run_id: Mapped[int | None] = mapped_column(ForeignKey("crawl_runs.id", ondelete="SET NULL"))
    added: Mapped[list[Any]]  # action names; flows as "flow:<name>"
    removed: Mapped[list[Any]]
    changed: Mapped[dict[str, Any]]  # name -> the fields that changed
    actions: Mapped[int]  # how many the site had after it
    flows: Mapped[int]


class Submission(Base):
    """A request to crawl a host (POST /submissions, `actiondex submit`): queued, then
    crawling, then done (with the actions found) or failed (with the reason). Migration 0010."""

    __tablename__ = "submissions"
    __table_args__ = (
        # At most one open submission per host: duplicates collapse onto it, across replicas.
        Index(
            "uq_submissions_open_host",
            "host",
            unique=True,
            sqlite_where=text("status IN ('queued', 'crawling')"),
            postgresql_where=text("status IN ('queued', 'crawling')"),
        ),
        Index("ix_submissions_status_created", "status", "created_at"),
        Index("ix_submissions_client_created", "client", "created_at"),
        Index("ix_submissions_domain_created", "domain", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # an unguessable token
    url: Mapped[str] = mapped_column(String(2048))  # the target as the crawler takes it
    host: Mapped[str] = mapped_column(String(255))
    domain: Mapped[str] = mapped_column(String(255))  # registrable domain (Public Suffix List)
    client: Mapped[str | None] = mapped_column(String(64))  # HMAC of the address; None: the CLI
    status: Mapped[str] = mapped_column(String(10))  # queued | crawling | done | failed
    reason: Mapped[str | None] = mapped_column(Text)
    errors: Mapped[list[Any]] = mapped_column(default=list)  # the crawl's diagnostic codes
    actions: Mapped[list[Any]] = mapped_column(default=list)  # [{id, name, title}] when done
    attempts: Mapped[int] = mapped_column(default=0)  # crawls that began on it
    run_id: Mapped[int | None]  # the crawl run that took it last
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class EndpointLiveness(Base):
    """The last liveness probe of one endpoint a site lists (registry/store/liveness.py): an
    MCP server, an A2A agent's card, an ARD registry. ``endpoint`` is what its actions name as
    theirs, ``probe_url`` what was asked. Migration 0014."""

    __tablename__ = "endpoint_liveness"
    __table_args__ = (UniqueConstraint("site_id", "endpoint"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(2048))
    probe_url: Mapped[str] = mapped_column(String(2048))
    protocol: Mapped[str] = mapped_column(String(10))  # mcp | a2a | ard
    status: Mapped[str] = mapped_column(String(20))  # live|auth-required|not-protocol|unreachable
    checked_at: Mapped[datetime]
    latency_ms: Mapped[int | None]
    http_status: Mapped[int | None]
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)  # era, tools, auth metadata
    next_probe_at: Mapped[datetime] = mapped_column(index=True)


# GET /sites' order (registry.store.site_list): when the action set last changed, else when the site
# was first stored; the host breaks ties. Migration 0005.
SITE_CHANGE_ORDER = func.coalesce(Site.changed_at, Site.created_at)
# PostgreSQL only: SQLite cannot reflect an expression index, so no drift check could see it.
Index("ix_sites_change_order", SITE_CHANGE_ORDER, Site.host).ddl_if(dialect="postgresql")
POSTGRESQL_ONLY = frozenset({"ix_sites_change_order"})  # what migrations/env.py compares there

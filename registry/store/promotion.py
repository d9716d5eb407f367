"""Promoting a site's crawl to the store: ``promote_site`` applies the SiteUpdate that
``registry.normalising.normalise_site`` made. Functions take a Session and at most flush();
callers own the transaction (``with registry.db.engine.transaction(engine) as session:``).

Nothing-lost rules (docs/RELIABILITY.md section 1) live here:
- a document is replaced only by a newer document that fetched AND parsed;
- failures (timeouts, 5xx, parse errors) record an error on the site and keep what it had;
- a document's actions go only after repeated 404/410 answers spanning days, or at once when
  robots.txt now disallows it (the owner's word is final; an unreachable robots.txt is an
  error like any other, and keeps everything);
- an unchanged document (same content hash, same normaliser) writes nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import delete, func, inspect, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document, FlowRow, Site
from registry.formats import NORMALISER_VERSION
from registry.model.schemas import FetchFailure
from registry.normalising import NormalisedDocument, SiteUpdate
from registry.store.history import Changes
from registry.store.live_tools import drop_listed_twice
from registry.store.reciprocal import verified_manifest, verify_named
from registry.store.rows import (
    action_rows,
    flow_rows,
    lock_site,
    mark_changed,
    site_row,
    utcnow,
)
from registry.store.site_flows import settle_flow_terms

GONE_STATUSES = (404, 410)
GONE_AFTER_COUNT = 3
GONE_AFTER = timedelta(hours=72)


class NotFound(Exception):
    """A requested row does not exist."""


@dataclass
class PromoteResult:
    host: str
    changed: bool = False
    documents: int = 0
    actions: int = 0
    flows: int = 0
    diagnostics: int = 0
    errors: list[str] = field(default_factory=list)


def promote_site(
    session: Session,
    update: SiteUpdate,
    *,
    max_actions: int = 1000,
    now: datetime | None = None,
    reason: str = "crawl",
    run_id: int | None = None,
) -> PromoteResult:
    """Apply one site's crawl to the store; the caller's transaction makes it atomic.
    ``reason`` (crawl or ingest) and ``run_id`` go into the site's history entry, if the
    action set changed (registry/store/history.py)."""
    now = now or utcnow()
    site, new = site_row(session, update.host, update.origin, now)
    if site.origin != update.origin and _answered(update):
        # A site is its origin: the scheme and port that last answered. A site first tried over
        # https (tls-invalid) and then crawled over http is recrawled over http from then on.
        lock_site(session, site)
        site.origin = update.origin
    documents = select(Document).where(Document.site_id == site.id)
    known = {} if new else {d.url: d for d in session.scalars(documents)}
    # The same document under the site's other scheme (its origin moved from https to http or
    # back): the new fetch replaces it, or its actions' ids would be taken twice.
    moved = {_schemeless(url): row for url, row in known.items()}
    result = PromoteResult(update.host, documents=len(update.documents))
    changes = Changes(session, site, new=new)  # locks the site before its first write
    if site.removed_at is not None:  # an explicit crawl or ingest brings a removed site back
        changes.begin()
        site.removed_at = None
    budget = max_actions
    for doc in update.documents:
        result.diagnostics += len(doc.manifest.diagnostics)
        if doc.failed:
            result.errors.append(doc.manifest.diagnostics[0].code)
            _record_error(site, doc.raw.url, doc.manifest.diagnostics[0].message, now)
            continue
        row = known.get(doc.raw.url) or moved.get(_schemeless(doc.raw.url))
        if _unchanged(row, doc, doc.raw.url):
            budget -= len(doc.manifest.actions)
            continue
        changes.begin()
        budget = _replace_document(session, site, row, doc, budget, now)
        result.changed = True
    # The formats of every document the site may have now: those it had and those it got.
    formats = {d.format for d in known.values()} | {d.manifest.format for d in update.documents}
    if result.changed:
        # A card's tool and the live tools/list's: one action, the live one. Then the flows: a
        # step's action may live in a document that changed alone (a new site has only the
        # update's flows).
        drop_listed_twice(session, site.id, formats)
        if not new or any(d.manifest.flows for d in update.documents):
            settle_flow_terms(session, site)
    changes.close(reason)
    # Removals after replacements, each kind its own history entry: tombstones, then robots.
    for kind in ("tombstone", "robots"):
        for failure in update.failures:
            if _failure_kind(failure) == kind:
                result.changed |= _remove(session, known.get(failure.url), kind, changes, now)
        changes.close(kind)
    for failure in update.failures:
        if _failure_kind(failure) is None:
            _record_error(site, failure.url, f"{failure.code}: {failure.message}".strip(": "), now)
        if failure.code not in ("not-found", "robots-disallowed"):
            result.errors.append(failure.code)
    if not result.errors and site.last_error is not None:
        site.last_error = site.last_error_at = None  # an error of an earlier crawl, now gone
    session.flush()
    result.actions, result.flows = count_site(session, site.id)
    if result.changed:  # last: from its number to the commit, changes wait (registry.db.clock)
        for vouched in verify_named(session, site, formats):
            mark_changed(session, vouched, now)
        _refresh_site_text(site, update)
        mark_changed(session, site, now)
        changes.write(now, run_id)  # at the version mark_changed gave
        session.flush()
    return result


def _answered(update: SiteUpdate) -> bool:
    """Whether the site answered over the crawl's origin: a document fetched, a 304, or an
    HTTP status on a failed fetch (a TLS, DNS or connection failure has none)."""
    return bool(update.documents or update.not_modified or any(f.status for f in update.failures))


def _schemeless(url: str) -> str:
    return url.split("://", 1)[-1]


def _unchanged(row: Document | None, doc: NormalisedDocument, url: str) -> bool:
    return (
        row is not None
        and row.url == url
        and row.content_hash == doc.content_hash
        and row.normaliser_version == NORMALISER_VERSION
        and row.missing_count == 0
    )


def _replace_document(
    session: Session,
    site: Site,
    row: Document | None,
    doc: NormalisedDocument,
    budget: int,
    now: datetime,
) -> int:
    """Write the document and swap its actions and flows; returns the action budget left."""
    raw, manifest = doc.raw, doc.manifest
    fresh = row is None  # a new document: no actions or flows to delete
    if row is None:
        row = Document(site_id=site.id, url=raw.url, fetched_at=now)
        session.add(row)
    row.url = raw.url  # the same, or the document under the site's other scheme
    row.format, row.status, row.content_hash, row.raw = (
        manifest.format,
        raw.status,
        doc.content_hash,
        raw.body,
    )
    row.content_type, row.etag, row.last_modified = raw.content_type, raw.etag, raw.last_modified
    row.fetched_at = raw.fetched_at or now
    row.normaliser_version = NORMALISER_VERSION
    row.diagnostics = [d.model_dump(mode="json") for d in manifest.diagnostics]
    row.endpoints = manifest.endpoints or None
    row.missing_count, row.missing_since = 0, None
    session.flush()
    if not fresh:
        session.execute(delete(ActionRow).where(ActionRow.document_id == row.id))
        session.execute(delete(FlowRow).where(FlowRow.document_id == row.id))
    manifest = verified_manifest(session, site.host, manifest)
    actions = action_rows(site, row, manifest)[: max(budget, 0)]
    if len(actions) < len(manifest.actions):
        row.diagnostics = row.diagnostics + [
            {
                "code": "too-many-actions",
                "severity": "warning",
                "path": "$.actions",
                "message": f"site action limit reached; kept {len(actions)} of "
                f"{len(manifest.actions)}",
                "hint": None,
            }
        ]
    session.add_all(actions)
    session.add_all(flow_rows(site, row, manifest))
    return budget - len(actions)


def _failure_kind(failure: FetchFailure) -> str | None:
    """What a failed fetch says of the stored document: "tombstone" (gone: counts towards its
    removal), "robots" (the owner withdrew it: removed now) or None (an error: kept)."""
    if failure.code == "robots-disallowed":
        return "robots"
    if failure.status in GONE_STATUSES or failure.code == "not-found":
        return "tombstone"
    return None


def _remove(
    session: Session, row: Document | None, kind: str, changes: Changes, now: datetime
) -> bool:
    """A 404/410 counts towards the document's removal (three over 72 h); robots.txt
    withdraws it at once: the owner's word is final. True when the document went."""
    if row is None or inspect(row).deleted or inspect(row).was_deleted:
        return False  # most sites lack most well-known files: not an error
    if kind == "tombstone":
        row.missing_count += 1
        row.missing_since = row.missing_since or now
        if row.missing_count < GONE_AFTER_COUNT or now - row.missing_since < GONE_AFTER:
            return False
    changes.begin()
    session.delete(row)  # its actions and flows go with it (ON DELETE CASCADE)
    return True


def _record_error(site: Site, url: str, message: str, now: datetime) -> None:
    site.last_error_at = now
    site.last_error = f"{url}: {message}"[:2000]


def _refresh_site_text(site: Site, update: SiteUpdate) -> None:
    for doc in update.documents:
        if doc.manifest.site_name and not doc.failed:
            site.name = doc.manifest.site_name
            site.description = doc.manifest.site_description or site.description
            if doc.manifest.site_description or doc.manifest.site_about:
                site.about = doc.manifest.site_about  # a new description without one: none
            return


def count_site(session: Session, site_id: int) -> tuple[int, int]:
    """The site's stored actions and flows, in one statement."""
    actions = select(func.count()).where(ActionRow.site_id == site_id).scalar_subquery()
    flows = select(func.count()).where(FlowRow.site_id == site_id).scalar_subquery()
    counted = session.execute(select(actions, flows)).one()
    return int(counted[0] or 0), int(counted[1] or 0)

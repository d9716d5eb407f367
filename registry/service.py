"""Use cases over the store. Functions take a Session and at most flush(); callers own the
transaction (``with registry.db.transaction(engine) as session:``).

Nothing-lost rules (../shared/RELIABILITY.md section 1) live here:
- a document is replaced only by a newer document that fetched AND parsed;
- failures (timeouts, 5xx, parse errors) record an error on the site and keep what it had;
- a document's actions go only after repeated 404/410 answers spanning days;
- an unchanged document (same content hash, same normaliser) writes nothing at all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from registry.formats import NORMALISER_VERSION, normalise
from registry.index.parts import INDEX_VERSION, site_words
from registry.models import ActionRow, Document, FlowRow, Site
from registry.schemas import Diagnostic, FetchFailure, FirstPass, Manifest, RawDocument, SiteCrawl
from registry.store import (
    action_rows,
    flow_rows,
    get_or_create_site,
    lock_site,
    utcnow,
    with_index_parts,
)

GONE_STATUSES = (404, 410)
GONE_AFTER_COUNT = 3
GONE_AFTER = timedelta(hours=72)


class NotFound(Exception):
    """A requested row does not exist."""


@dataclass
class NormalisedDocument:
    raw: RawDocument
    manifest: Manifest
    content_hash: str
    read_by: str | None = None  # the referrer that lists its actions instead

    @property
    def failed(self) -> bool:
        """Fetched but unusable (bad JSON, unknown format...): must not replace what we had."""
        m = self.manifest
        return not m.actions and not m.flows and any(d.severity == "error" for d in m.diagnostics)


@dataclass
class SiteUpdate:
    host: str
    origin: str
    documents: list[NormalisedDocument] = field(default_factory=list)
    not_modified: list[str] = field(default_factory=list)
    failures: list[FetchFailure] = field(default_factory=list)


@dataclass
class PromoteResult:
    host: str
    changed: bool = False
    documents: int = 0
    actions: int = 0
    flows: int = 0
    diagnostics: int = 0
    errors: list[str] = field(default_factory=list)


def content_hash(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def normalise_site(crawl: SiteCrawl) -> SiteUpdate:
    """Run the format normalisers over a crawl's documents. Pure: no database.

    A document may read others of the same crawl that it references (an ai-plugin its
    OpenAPI): its hash then covers theirs, so a change in the OpenAPI alone is seen, and the
    referenced document keeps no actions of its own, so its operations are not listed twice.
    A document the crawler normalised already (``crawl.first_pass``) is not normalised again
    unless it can now read one of the crawl's documents.
    """
    bodies = {raw.url: raw.body for raw in crawl.documents}
    consumer: dict[str, str] = {}  # referenced url -> the document that read it
    docs = []
    for raw in crawl.documents:
        manifest, read = _normalise_reading(raw, crawl.host, bodies,
                                            crawl.first_pass.get(raw.url))
        for url in read:
            consumer.setdefault(url, raw.url)
        digest = _combined_hash(raw.body, [bodies[u] for u in read])
        docs.append(NormalisedDocument(raw, manifest, digest))
    for doc in docs:
        referrer = consumer.get(doc.raw.url)
        if referrer is not None and referrer not in consumer:  # a cycle blanks neither
            doc.manifest = _consumed(doc.manifest, referrer)
            doc.read_by = referrer
    return SiteUpdate(crawl.host, crawl.origin, docs, crawl.not_modified, crawl.failures)


def normalise_alone(raw: RawDocument, site: str) -> FirstPass:
    """``raw`` normalised reading no other document, with every URL it asked to read: what
    the crawler follows, and what normalise_site reuses when none of those were fetched."""
    asked: list[str] = []

    def resolve(url: str) -> None:
        asked.append(url)

    manifest = normalise(raw, site=site, resolve=resolve)
    return FirstPass(body_hash=content_hash(raw.body), asked=asked, manifest=manifest)


def _normalise_reading(raw: RawDocument, site: str, bodies: dict[str, bytes],
                       first: FirstPass | None) -> tuple[Manifest, list[str]]:
    """Normalise ``raw``, letting it read the crawl's other documents; returns those read."""
    if (first is not None and first.body_hash == content_hash(raw.body)
            and not any(url in bodies for url in first.asked)):
        # Asked the same questions, it would get the same "not available" answers: the
        # normalisers are deterministic, so the first pass is the manifest.
        return first.manifest, []
    read: set[str] = set()

    def resolve(url: str) -> bytes | None:
        body = bodies.get(url)
        if body is not None and url != raw.url:
            read.add(url)
        return body

    return normalise(raw, site=site, resolve=resolve), sorted(read)


def _combined_hash(body: bytes, referenced: list[bytes]) -> str:
    if not referenced:
        return content_hash(body)
    return content_hash(body + b"".join(b"\x00" + content_hash(r).encode() for r in referenced))


def _consumed(manifest: Manifest, referrer: str) -> Manifest:
    note = Diagnostic(code="read-by-referrer", severity="info", path="$",
                      message=f"its actions are listed under {referrer}, which references it")
    return manifest.model_copy(update={"actions": [], "flows": [],
                                       "diagnostics": [*manifest.diagnostics, note]})


def promote_site(
    session: Session, update: SiteUpdate, *, max_actions: int = 1000, now: datetime | None = None
) -> PromoteResult:
    """Apply one site's crawl to the store; the caller's transaction makes it atomic."""
    now = now or utcnow()
    site = get_or_create_site(session, update.host, update.origin, now)
    known = {d.url: d for d in session.scalars(select(Document).where(Document.site_id == site.id))}
    result = PromoteResult(update.host, documents=len(update.documents))
    budget = max_actions
    locked = False
    for doc in update.documents:
        result.diagnostics += len(doc.manifest.diagnostics)
        if doc.failed:
            result.errors.append(doc.manifest.diagnostics[0].code)
            _record_error(site, doc.raw.url, doc.manifest.diagnostics[0].message, now)
            continue
        row = known.get(doc.raw.url)
        if _unchanged(row, doc):
            budget -= len(doc.manifest.actions)
            continue
        if not locked:
            lock_site(session, site)
            locked = True
        budget = _replace_document(session, site, row, doc, budget, now)
        result.changed = True
    for failure in update.failures:
        result.changed |= _apply_failure(session, site, known.get(failure.url), failure, now)
        if failure.code not in ("not-found", "robots-disallowed"):
            result.errors.append(failure.code)
    if not result.errors and site.last_error is not None:
        site.last_error = site.last_error_at = None  # an error of an earlier crawl, now gone
    if result.changed:
        site.version += 1
        site.changed_at = now
        _refresh_site_text(site, update)
    session.flush()
    result.actions, result.flows = count_site(session, site.id)
    return result


def _unchanged(row: Document | None, doc: NormalisedDocument) -> bool:
    return (
        row is not None
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
    if row is None:
        row = Document(site_id=site.id, url=raw.url, fetched_at=now)
        session.add(row)
    row.format, row.status, row.content_hash, row.raw = (
        manifest.format, raw.status, doc.content_hash, raw.body,
    )
    row.content_type, row.etag, row.last_modified = raw.content_type, raw.etag, raw.last_modified
    row.fetched_at = raw.fetched_at or now
    row.normaliser_version = NORMALISER_VERSION
    row.diagnostics = [d.model_dump(mode="json") for d in manifest.diagnostics]
    row.missing_count, row.missing_since = 0, None
    session.flush()
    session.execute(delete(ActionRow).where(ActionRow.document_id == row.id))
    session.execute(delete(FlowRow).where(FlowRow.document_id == row.id))
    actions = action_rows(site, row, manifest)[: max(budget, 0)]
    if len(actions) < len(manifest.actions):
        row.diagnostics = row.diagnostics + [
            {"code": "too-many-actions", "severity": "warning", "path": "$.actions",
             "message": f"site action limit reached; kept {len(actions)} of "
                        f"{len(manifest.actions)}", "hint": None}
        ]
    session.add_all(actions)
    session.add_all(flow_rows(site, row, manifest))
    return budget - len(actions)


def _apply_failure(
    session: Session, site: Site, row: Document | None, failure: FetchFailure, now: datetime
) -> bool:
    """Record a failed fetch. Returns True when the site's action set changed (removal)."""
    if failure.code == "robots-disallowed":
        return False
    if failure.status in GONE_STATUSES or failure.code == "not-found":
        if row is None:
            return False  # most sites lack most well-known files: not an error
        row.missing_count += 1
        row.missing_since = row.missing_since or now
        if row.missing_count >= GONE_AFTER_COUNT and now - row.missing_since >= GONE_AFTER:
            session.delete(row)
            return True
        return False
    _record_error(site, failure.url, f"{failure.code}: {failure.message}".strip(": "), now)
    return False


def _record_error(site: Site, url: str, message: str, now: datetime) -> None:
    site.last_error_at = now
    site.last_error = f"{url}: {message}"[:2000]


def _refresh_site_text(site: Site, update: SiteUpdate) -> None:
    for doc in update.documents:
        if doc.manifest.site_name and not doc.failed:
            site.name = doc.manifest.site_name
            site.description = doc.manifest.site_description or site.description
            return


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
        docs = {d.id: d for d in session.scalars(
            select(Document).where(Document.id.in_({r.document_id for r in rows})))}
        sites = {site.id: site for site in session.scalars(
            select(Site).where(Site.id.in_({r.site_id for r in rows})))}
        for row in rows:
            site = sites[row.site_id]
            with_index_parts(row, site.host, docs[row.document_id],
                             site_words(site.name, site.description))
        session.flush()  # the rows are current now: the next query moves on
        done += len(rows)
    return done


def count_site(session: Session, site_id: int) -> tuple[int, int]:
    actions = session.scalar(select(func.count()).where(ActionRow.site_id == site_id)) or 0
    flows = session.scalar(select(func.count()).where(FlowRow.site_id == site_id)) or 0
    return actions, flows

"""A site's crawl normalised, before the store sees it: ``normalise_site`` turns a SiteCrawl
into the SiteUpdate that ``registry.store.promotion.promote_site`` stores. Pure: no database, so it
runs outside the transaction (STYLE.md habit 2).

``normalise_alone`` is the crawler's first pass over one document (to learn what it
references); ``normalise_site`` reuses that pass when nothing it asked for was fetched.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from registry.formats import normalise
from registry.model.schemas import (
    Diagnostic,
    FetchFailure,
    FirstPass,
    Manifest,
    RawDocument,
    SiteCrawl,
)


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
        manifest, read = _normalise_reading(raw, crawl.host, bodies, crawl.first_pass.get(raw.url))
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


def _normalise_reading(
    raw: RawDocument, site: str, bodies: dict[str, bytes], first: FirstPass | None
) -> tuple[Manifest, list[str]]:
    """Normalise ``raw``, letting it read the crawl's other documents; returns those read."""
    if (
        first is not None
        and first.body_hash == content_hash(raw.body)
        and not any(url in bodies for url in first.asked)
    ):
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
    note = Diagnostic(
        code="read-by-referrer",
        severity="info",
        path="$",
        message=f"its actions are listed under {referrer}, which references it",
    )
    return manifest.model_copy(
        update={"actions": [], "flows": [], "diagnostics": [*manifest.diagnostics, note]}
    )

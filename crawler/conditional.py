"""Validators for conditional GET: the ETag and Last-Modified each stored document came with."""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from registry.models import Document, Site

Validators = dict[str, tuple[str | None, str | None]]


def stored_validators(engine: Engine, hosts: list[str]) -> Validators:
    """url -> (etag, last_modified) for the stored documents of ``hosts`` that have either."""
    query = (select(Document.url, Document.etag, Document.last_modified)
             .join(Site, Document.site_id == Site.id)
             .where(Site.host.in_(hosts))
             .where((Document.etag.is_not(None)) | (Document.last_modified.is_not(None))))
    with Session(engine) as session:
        return {url: (etag, modified) for url, etag, modified in session.execute(query)}

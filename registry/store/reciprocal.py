"""Whose endpoint it is, from the other side: an action of site A whose endpoint is on host B
(``origin: cross``) is verified when B publishes a document the crawler reads (an ARD catalog,
an agent card, an OpenAPI description, an API catalog linkset, an MCP server card) that names
A: a URL on A's host in it (an OpenAPI ``servers`` entry, a linkset anchor, a card's ``url``).

Both orders of crawling meet here: promoting A looks at B's stored documents
(``verified_manifest``), promoting B marks the actions of the sites B names that call B
(``verify_named``). Functions take a Session and at most flush(); the caller owns the
transaction. Documents are read as stored (``Document.raw``), at most MAX_DOCUMENTS of a host.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document, Site
from registry.formats import VOUCHING_FORMATS
from registry.index.parts import site_words
from registry.model.schemas import Manifest
from registry.model.urls import site_key, site_of
from registry.store.rows import with_index_parts

MAX_DOCUMENTS = 20  # of one host: its well-known documents, not every page
MAX_STRINGS = 10_000  # strings of one document looked at


def named_hosts(body: bytes | None) -> set[str]:
    """The hosts a JSON document names in its http(s) URLs (lower case, no port)."""
    if not body:
        return set()
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return set()
    hosts = set()
    for count, text in enumerate(_strings(data)):
        if count >= MAX_STRINGS:
            break
        if text[:8].lower().startswith(("http://", "https://")):
            host = site_of(text)
            if host:
                hosts.add(host)
    return hosts


def _strings(data: Any) -> Iterator[str]:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _naming(session: Session, host: str) -> set[str]:
    """The hosts that ``host``'s stored naming documents name."""
    bodies = session.scalars(
        select(Document.raw)
        .join(Site, Document.site_id == Site.id)
        .where(Site.host == host, Document.format.in_(VOUCHING_FORMATS))
        .limit(MAX_DOCUMENTS)
    )
    return set().union(*(named_hosts(body) for body in bodies))


def _names(named: set[str], site: str) -> bool:
    bare = site_of(f"https://{site}/")
    return bare in named or f"www.{bare}" in named or bare.removeprefix("www.") in named


def verified_manifest(session: Session, site: str, manifest: Manifest) -> Manifest:
    """``manifest`` with each unverified cross-origin action verified whose endpoint's host
    publishes a stored document naming ``site``."""
    waiting = {site_key(a.endpoint) for a in manifest.actions if a.endpoint and not a.verified}
    if not waiting:
        return manifest
    vouching = {host for host in waiting if _names(_naming(session, host), site)}
    if not vouching:
        return manifest
    actions = [
        a.model_copy(update={"verified": True})
        if a.endpoint and not a.verified and site_key(a.endpoint) in vouching
        else a
        for a in manifest.actions
    ]
    return manifest.model_copy(update={"actions": actions})


def verify_named(
    session: Session, site: Site, formats: Collection[str | None] | None = None
) -> list[Site]:
    """After ``site`` (host B) was promoted: verify the stored cross-origin actions that call B
    of the sites B's documents name. Returns those sites (their index parts are worked out
    again here; the caller marks each changed). ``formats``: those of all B's documents, when
    the caller knows them: none a naming one, B names no one and the store is not asked."""
    if formats is not None and not set(VOUCHING_FORMATS) & set(formats):
        return []
    named = _naming(session, site.host)
    if not named:
        return []
    bare = site_of(f"https://{site.host}/")
    prefixes = [f"{scheme}://{bare}{end}" for scheme in ("http", "https") for end in "/:?"]
    rows = session.scalars(
        select(ActionRow)
        .join(Site, ActionRow.site_id == Site.id)
        .where(
            ActionRow.same_origin.is_(False),
            ActionRow.verified.is_(False),
            Site.id != site.id,
            or_(*(ActionRow.endpoint.startswith(p, autoescape=True) for p in prefixes)),
        )
    ).all()
    changed: dict[int, Site] = {}
    for row in rows:
        owner = session.get(Site, row.site_id)
        if owner is None or not _names(named, owner.host):
            continue
        row.verified = True
        document = session.get(Document, row.document_id)
        if document is not None:
            words = site_words(owner.name, owner.description, owner.about)
            with_index_parts(row, owner.host, document, words)
        changed[owner.id] = owner
    session.flush()
    return list(changed.values())

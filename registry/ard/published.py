"""Entries as their publishers wrote them, read again from the raw ARD documents in the store.

Why re-read rather than keep a table of entries: the raw documents are kept anyway (DESIGN.md:
a better normaliser re-runs over them), a site has one or two ARD documents, and what the
publisher wrote stays in one place. Parsed entries are cached per site and the (id, content
hash) of its ARD documents, so a site is parsed again only when a crawl changed one; the cost
of a check is one indexed query (README, "ARD": figures measured).

Each entry is keyed two ways: by its identifier (GET /ard/agents/{identifier}) and by the
action name the ARD normaliser gave it (``registry.formats.ard.entry_name``), so a search hit
on that action is answered with the entry. Entries are returned as written, except that
``identifier`` is spelled ``urn:air:`` and ``type`` (or a lone ``mediaType``) is normalised
(registry.model.ard_terms); one that is no complete ARD entry (a name, a type, exactly one of
``url`` and ``data``) or names another publisher than its site is not served as written.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import Document, Site
from registry.formats import ard as ard_format
from registry.formats._load import Unusable, load
from registry.model import ard_terms as terms
from registry.model.urls import same_origin

CACHED_SITES = 2048


@dataclass
class SiteEntries:
    by_identifier: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_name: dict[str, dict[str, Any]] = field(default_factory=dict)


_cache: OrderedDict[tuple[Any, ...], SiteEntries] = OrderedDict()
_lock = threading.Lock()


def site_entries(session: Session, host: str) -> SiteEntries:
    """The publisher-written entries of the site ``host`` (empty if it has none)."""
    rows = session.execute(
        select(Document.id, Document.url, Document.content_hash, Document.format)
        .join(Site, Site.id == Document.site_id)
        .where(Site.host == host)
        .order_by(Document.id)
    ).all()
    key = (host, *((r.id, r.content_hash) for r in rows if r.format == ard_format.NAME))
    if len(key) == 1:
        return SiteEntries()
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    found = _read(
        session,
        host,
        {r.url: r.id for r in rows},
        [r.id for r in rows if r.format == ard_format.NAME],
    )
    with _lock:
        _cache[key] = found
        while len(_cache) > CACHED_SITES:
            _cache.popitem(last=False)
    return found


def _read(
    session: Session, host: str, ids_by_url: dict[str, int], ard_ids: list[int]
) -> SiteEntries:
    found = SiteEntries()

    def body(doc_id: int) -> Any:
        raw = session.scalar(select(Document.raw).where(Document.id == doc_id))
        try:
            return load(raw or b"")[0]
        except Unusable:
            return None

    def walk(catalog: Any, depth: int) -> None:
        entries = catalog.get("entries") if isinstance(catalog, dict) else None
        for entry in (entries if isinstance(entries, list) else [])[: ard_format.MAX_ENTRIES]:
            if not isinstance(entry, dict):
                continue
            if ard_format.is_catalog(entry):
                if depth < ard_format.MAX_NESTING:
                    inner = entry.get("data")
                    if not isinstance(inner, dict) and entry.get("url") in ids_by_url:
                        inner = body(ids_by_url[entry["url"]])
                    walk(inner, depth + 1)
                continue
            _keep(found, entry, host)

    for doc_id in ard_ids:
        walk(body(doc_id), 0)
    return found


def _keep(found: SiteEntries, entry: dict[str, Any], host: str) -> None:
    urn = terms.identifier(entry.get("identifier"))
    media = terms.media_type(entry.get("type", entry.get("mediaType")))
    name = entry.get("displayName")
    if (
        urn is None
        or media is None
        or not isinstance(name, str)
        or not name.strip()
        or ("url" in entry) == ("data" in entry)
        or not _publishes(host, urn)
    ):
        return
    written = {**entry, "identifier": urn, "type": media}
    # The identifier is kept once: the first entry of the site to claim it wins.
    found.by_identifier.setdefault(urn, written)
    found.by_name.setdefault(ard_format.entry_name(entry), written)


def _publishes(host: str, urn: str) -> bool:
    """The rule the normaliser applies: the URN's publisher is the site or its parent."""
    who = terms.publisher(urn)
    site = host.split(":")[0]
    return same_origin(f"https://{who}/", site) or same_origin(f"https://{site}/", who)


def dumps(entry: dict[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, sort_keys=True)

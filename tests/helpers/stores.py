"""Stores for tests, written with the models directly (the index reads tables, not manifests),
and the index documents a store makes."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from harness.db import engine_for
from registry.db.engine import migrate, transaction
from registry.db.tables import ActionRow, Document, FlowRow, Site
from registry.formats import normalise
from registry.formats.html import html_to_document
from registry.index.load import site_documents
from registry.model.schemas import RawDocument, SiteCrawl, stable_id
from registry.model.urls import site_of
from registry.normalising import normalise_site
from registry.placement import origin_of
from registry.store.promotion import promote_site
from registry.store.rows import mark_changed, utcnow
from tests.helpers.paths import FIXTURES


def add_site(
    session: Session,
    host: str,
    actions: list[dict[str, Any]],
    flows: list[dict[str, Any]] | None = None,
    **site: Any,
) -> Site:
    """A site with one agent-actions document holding ``actions`` and ``flows``."""
    row = Site(host=host, origin=f"https://{host}", version=0, created_at=utcnow(), **site)
    session.add(row)
    session.flush()
    doc = Document(
        site_id=row.id,
        url=f"https://{host}/.well-known/agent-actions.json",
        format="agent-actions",
        status=200,
        fetched_at=utcnow(),
    )
    session.add(doc)
    session.flush()
    for spec in actions:
        values = {
            "description": "",
            "effect": "read",
            "method": "GET",
            "endpoint": f"https://{host}/api/{spec['name']}",
            "input_schema": {"type": "object"},
            "auth": "none",
        } | spec
        session.add(
            ActionRow(
                id=stable_id(host, "agent-actions", spec["name"]),
                site_id=row.id,
                document_id=doc.id,
                **values,
            )
        )
    for spec in flows or []:
        values = {"description": "", "effect": "spend", "input_schema": {"type": "object"}} | spec
        session.add(
            FlowRow(
                id=stable_id(host, "agent-actions", f"flow:{spec['name']}"),
                site_id=row.id,
                document_id=doc.id,
                **values,
            )
        )
    mark_changed(session, row, utcnow())  # version 1, numbered as a promotion numbers it
    row.changed_at = site.get("changed_at")  # as given (listing tests order by it)
    session.flush()
    return row


def shop_and_news(session: Session) -> None:
    """Two small sites: a shop with a purchase flow, a news site with a cross-origin action."""
    add_site(
        session,
        "shop.example",
        [
            {
                "name": "add_to_cart",
                "title": "Add to cart",
                "effect": "write",
                "method": "POST",
                "input_schema": {"type": "object", "properties": {"sku": {"type": "string"}}},
            },
            {
                "name": "searchProducts",
                "title": "Search the catalogue",
                "type": "SearchAction",
                "description": "Find printer paper, toner and more.",
            },
            {
                "name": "checkout",
                "title": "Place the order",
                "effect": "spend",
                "method": "POST",
                "type": "BuyAction",
            },
        ],
        [
            {
                "name": "purchase",
                "title": "Buy a product",
                "steps": [
                    {"action": "searchProducts", "title": None, "bindings": {}},
                    {"action": "add_to_cart", "title": None, "bindings": {"sku": "$steps.0.sku"}},
                    {"action": "checkout", "title": "Pay", "bindings": {}},
                ],
            },
        ],
        name="Example Shop",
        description="Office supplies",
    )
    add_site(
        session,
        "news.example",
        [
            {
                "name": "subscribe",
                "title": "Subscribe to the newsletter",
                "effect": "send",
                "method": "POST",
            },
            {"name": "search", "title": "Search articles", "type": "SearchAction"},
            {
                "name": "delete_account",
                "title": "Delete my account",
                "effect": "delete",
                "method": "DELETE",
            },
            {
                "name": "track_event",
                "title": "Track an article view",
                "same_origin": False,
                "endpoint": "https://tracker.example.net/collect",
            },
        ],
        name="Example News",
    )


def documents(session: Session, host: str) -> list[dict[str, Any]]:
    """The site's index documents, payloads decoded: JSON text may differ in key order (a
    PostgreSQL JSONB schema reads back reordered), their meaning may not."""
    docs = [json.loads(doc) for doc in site_documents(session, [host])]
    return [d | {"payload": json.loads(base64.b64decode(d["payload"]))} for d in docs]


def fixture_document(path: Path) -> RawDocument:
    """A fixture file as the golden tests read it: at ``https://<case>.example/`` unless a
    ``<case>.url`` beside it says where it is published."""
    case = path.name.rsplit(".", 1)[0]
    url_file = path.with_suffix(".url")
    url = url_file.read_text().strip() if url_file.exists() else f"https://{case}.example/"
    if path.suffix == ".html":
        document = html_to_document(url, path.read_bytes(), status=200, fetched_at=utcnow())
        assert document is not None, f"{path} holds no Schema.org items"
        return document
    return RawDocument(
        url=url, body=path.read_bytes(), content_type="application/json", fetched_at=utcnow()
    )


def store_fixture(session: Session, relative: str) -> str:
    """Promote a fixture (``"agent-actions/full-shop.json"``) through the store's own path
    (normalise_site, promote_site), with the documents it references (``_<name>`` files
    beside it, as the golden tests resolve them) fetched in the same crawl; its host."""
    path = FIXTURES / relative
    document = fixture_document(path)
    asked: list[str] = []

    def resolve(url: str) -> None:
        asked.append(url)

    normalise(document, resolve=resolve)
    documents = [document]
    for url in asked:
        body = path.parent / f"_{url.rstrip('/').rsplit('/', 1)[-1]}"
        if body.is_file():
            documents.append(RawDocument(url=url, body=body.read_bytes(), fetched_at=utcnow()))
    host = site_of(document.url)
    crawl = SiteCrawl(host=host, origin=origin_of(document.url), documents=documents)
    promote_site(session, normalise_site(crawl))
    return host


def promote_manifest(
    session: Session, host: str, actions: list[dict[str, Any]], now: datetime | None = None
) -> None:
    """Crawl ``host`` as if it served an agent-actions manifest of ``actions`` at its
    well-known path: normalised and promoted by the store's own path, at ``now``."""
    body = json.dumps(
        {"schema": "agent-actions/0.1", "site": f"https://{host}", "actions": actions}
    ).encode()
    doc = RawDocument(url=f"https://{host}/.well-known/agent-actions.json", body=body)
    update = normalise_site(SiteCrawl(host=host, origin=f"https://{host}", documents=[doc]))
    promote_site(session, update, now=now)


def committed_store(folder: Path, fill: Callable[[Session], None]) -> Engine:
    """A SQLite store of its own in ``folder``, migrated and filled by ``fill`` in a committed
    transaction: for code that reads the store in transactions of its own (open_index)."""
    engine = engine_for(f"sqlite:///{folder / 'store.db'}", folder)
    migrate(engine)
    with transaction(engine) as session:
        fill(session)
    return engine

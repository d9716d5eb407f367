"""Reading the store by id or host: an action, a flow, a site, the whole store's figures.

Each function takes a Session (the caller owns the transaction, as for registry.store.promotion) and
answers plain JSON-ready dicts, or None for an unknown id or host. An action is what GET /find
returns for it (its stored ``payload``: registry.model.results.FindResult minus the score) plus what
only a lookup needs: where it was read (``document``), its site's name and whether it stays on
the site (``same_origin``); registry.model.public.ActionDetail and FlowDetail are the shapes.

The listing (``list_sites``) is registry.store.site_list; the manifest export (``site_manifest``) is
registry.store.export.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, CrawlRun, Document, FlowRow, Site
from registry.index.parts import (
    INDEX_VERSION,
    action_payload,
    json_texts,
    known_auth,
    known_effect,
)
from registry.model.effects import needs_approval
from registry.store.export import site_manifest
from registry.store.liveness import endpoint_liveness, site_endpoints
from registry.store.site_list import find_site, iso, last_run, list_sites, run_summary

__all__ = [
    "action_detail",
    "find_site",
    "flow_detail",
    "list_sites",
    "site_detail",
    "site_manifest",
    "stats",
]


def action_detail(session: Session, action_id: str) -> dict[str, Any] | None:
    """The action ``action_id`` as GET /find returns it, plus ``document``, ``site_name`` and
    ``same_origin``; None if there is none."""
    found = session.execute(
        select(ActionRow, Document, Site)
        .join(Document, ActionRow.document_id == Document.id)
        .join(Site, ActionRow.site_id == Site.id)
        .where(ActionRow.id == action_id)
    ).one_or_none()
    if found is None:
        return None
    live = endpoint_liveness(session, found[0].site_id, found[0].endpoint)
    return _action(*found) | ({"liveness": live} if live else {})


def _action(row: ActionRow, doc: Document, site: Site) -> dict[str, Any]:
    payload: dict[str, Any]
    if row.payload is not None and row.index_version == INDEX_VERSION:
        payload = json.loads(row.payload)
    else:  # stored before its parts were worked out: made the same way, now
        source = {"url": doc.url, "format": doc.format or "unknown"}
        payload = json.loads(action_payload(row, json_texts(row), site.host, source))
    return payload | {  # the payload says needs_approval, as /find does
        "site_name": site.name,
        "same_origin": row.same_origin,
        "document": _document(doc),
    }


def _document(doc: Document) -> dict[str, Any]:
    return {"url": doc.url, "format": doc.format or "unknown", "fetched_at": iso(doc.fetched_at)}


def flow_detail(session: Session, flow_id: str) -> dict[str, Any] | None:
    """The flow ``flow_id`` in /find's shape, each step with its ``bindings`` and its
    ``action`` resolved (an ``action_detail`` dict; None if the step names no stored action)."""
    found = session.execute(
        select(FlowRow, Document, Site)
        .join(Document, FlowRow.document_id == Document.id)
        .join(Site, FlowRow.site_id == Site.id)
        .where(FlowRow.id == flow_id)
    ).one_or_none()
    if found is None:
        return None
    flow, doc, site = found
    steps = [step for step in flow.steps or [] if isinstance(step, dict)]
    actions = _step_actions(session, flow, doc, site, {str(s.get("action")) for s in steps})
    effect = known_effect(flow.effect)
    return {
        "id": flow.id,
        "kind": "flow",
        "site": site.host,
        "name": flow.name,
        "title": flow.title,
        "description": flow.description,
        "effect": effect,
        "type": None,
        "method": None,
        "endpoint": None,
        "origin": "same",  # each step's action says its own
        "verified": True,
        "auth": known_auth(flow.auth),
        "scope": flow.scope,
        "cost": flow.cost,
        "input_schema": flow.input_schema,
        "output_schema": None,
        "source": {"url": doc.url, "format": doc.format or "unknown"},
        "site_name": site.name,
        "needs_approval": needs_approval(effect),
        "document": _document(doc),
        "steps": [
            {
                "action": str(step.get("action")),
                "title": step.get("title"),
                "bindings": step.get("bindings") or {},
                "resolved": actions.get(str(step.get("action"))),
            }
            for step in steps
        ],
    }


def _step_actions(
    session: Session, flow: FlowRow, doc: Document, site: Site, names: set[str]
) -> dict[str, dict[str, Any]]:
    """The site's actions by name, those of the flow's own document first (a name means an
    action of the manifest the flow was read from)."""
    rows = sorted(
        session.execute(
            select(ActionRow, Document)
            .join(Document, ActionRow.document_id == Document.id)
            .where(ActionRow.site_id == site.id, ActionRow.name.in_(names))
        ).all(),
        key=lambda found: (found[0].document_id != flow.document_id, found[0].id),
    )
    by_name: dict[str, dict[str, Any]] = {}
    for row, row_doc in rows:
        by_name.setdefault(row.name, _action(row, row_doc, site))
    return by_name


def site_detail(session: Session, host: str) -> dict[str, Any] | None:
    """A site as users name it ("Shop.Example", "https://shop.example/", "bücher.example"):
    what it is, its actions and flows (compact), its documents and the last crawl run that
    named it. None if the store does not know it."""
    site = find_site(session, host)
    if site is None:
        return None
    actions = session.execute(
        select(
            ActionRow.id,
            ActionRow.name,
            ActionRow.title,
            ActionRow.effect,
            ActionRow.method,
            ActionRow.endpoint,
        )
        .where(ActionRow.site_id == site.id)
        .order_by(ActionRow.name, ActionRow.id)
    ).all()
    flows = session.execute(
        select(FlowRow.id, FlowRow.name, FlowRow.title, FlowRow.effect)
        .where(FlowRow.site_id == site.id)
        .order_by(FlowRow.name, FlowRow.id)
    ).all()
    docs = session.scalars(
        select(Document).where(Document.site_id == site.id).order_by(Document.url)
    ).all()
    return {
        "host": site.host,
        "origin": site.origin,
        "name": site.name,
        "description": site.description,
        "version": site.version,
        "changed_at": iso(site.changed_at),
        "last_error": site.last_error,
        "last_error_at": iso(site.last_error_at),
        "removed_at": iso(site.removed_at),
        "actions": [row._asdict() | {"effect": known_effect(row.effect)} for row in actions],
        "flows": [row._asdict() | {"effect": known_effect(row.effect)} for row in flows],
        "endpoints": site_endpoints(session, site.id),
        "documents": [
            _document(doc)
            | {
                "status": doc.status,
                "diagnostics": doc.diagnostics or [],
                "endpoints": doc.endpoints or {},
            }
            for doc in docs
        ],
        "last_crawl": last_run(session, site.host),
    }


def stats(session: Session) -> dict[str, Any]:
    """How much the store holds: sites (not those an operator removed), actions, flows,
    documents by format, actions by effect, and the last crawl run."""

    def count(model: Any) -> int:
        return session.scalar(select(func.count()).select_from(model)) or 0

    by_format = session.execute(
        select(Document.format, func.count()).group_by(Document.format)
    ).all()
    by_effect = session.execute(
        select(ActionRow.effect, func.count()).group_by(ActionRow.effect)
    ).all()
    effects: dict[str, int] = {}
    for effect, n in by_effect:
        effects[known_effect(effect)] = effects.get(known_effect(effect), 0) + n
    formats: dict[str, int] = {}
    for fmt, n in by_format:
        formats[fmt or "unknown"] = formats.get(fmt or "unknown", 0) + n
    return {
        "sites": count(select(Site.id).where(Site.removed_at.is_(None)).subquery()),
        "actions": count(ActionRow),
        "flows": count(FlowRow),
        "documents": count(Document),
        "documents_by_format": dict(sorted(formats.items())),
        "actions_by_effect": dict(sorted(effects.items())),
        "last_crawl": _run(
            session.scalars(
                select(CrawlRun).order_by(CrawlRun.started_at.desc(), CrawlRun.id.desc()).limit(1)
            ).first()
        ),
    }


def _run(run: CrawlRun | None) -> dict[str, Any] | None:
    return None if run is None else run_summary(run)

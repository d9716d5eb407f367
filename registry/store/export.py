"""A site's actions and flows as ONE agent-actions/0.1 manifest, whatever formats it publishes
(registry.formats.agent_actions' docstring is the format's spec).

Each stored action becomes an agent-actions action with its absolute endpoint; each flow keeps
its steps and bindings. Two documents may both name an action ``search`` (a Schema.org
SearchAction and an OpenAPI operation): the second becomes ``search_2``, and the flows of its
document name it so. Our own validator reads the export back with no error
(tests/registry/test_export.py).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document, FlowRow, Site
from registry.formats.agent_actions import NAME as FORMAT
from registry.index.parts import known_auth, known_effect
from registry.store.site_list import find_site

VERSION = f"{FORMAT}/0.1"


def site_manifest(session: Session, host: str) -> dict[str, Any] | None:
    """The export of the site ``host`` names (as registry.store.site_list.find_site reads it), or
    None if the store does not know it or an operator removed it."""
    site = find_site(session, host)
    if site is None or site.removed_at is not None:  # removed: nothing is published there
        return None
    rows = session.execute(
        select(ActionRow, Document.url)
        .join(Document, ActionRow.document_id == Document.id)
        .where(ActionRow.site_id == site.id)
        .order_by(Document.url, ActionRow.name)
    ).all()
    taken: set[str] = set()
    renamed: dict[int, dict[str, str]] = defaultdict(dict)  # document id -> stored -> export
    on_site: dict[str, str] = {}  # stored -> export, the first document's (a step elsewhere)
    actions = []
    for row, _url in rows:
        name = _free_name(row.name, taken)
        renamed[row.document_id][row.name] = name
        on_site.setdefault(row.name, name)
        actions.append(_action(row, name))
    flows = session.scalars(
        select(FlowRow)
        .join(Document, FlowRow.document_id == Document.id)
        .where(FlowRow.site_id == site.id)
        .order_by(Document.url, FlowRow.name)
    ).all()
    flow_names: set[str] = set()
    exported = [
        flow
        for row in flows
        if (flow := _flow(row, on_site | renamed[row.document_id], flow_names))
    ]
    # Written as seed 002 prints a manifest (``version``, steps bound ``with``); the reader
    # takes ``schema`` and ``bind`` too (registry/formats/agent_actions.py).
    return {"version": VERSION, "site": _site(site), "actions": actions, "flows": exported}


def _site(site: Site) -> dict[str, Any]:
    info: dict[str, Any] = {"url": site.origin}
    if site.name:
        info["name"] = site.name
    if site.description:
        info["description"] = site.description
    return info


def _free_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``... when an earlier document took it (64 at most)."""
    candidate, counter = name, 1
    while candidate in taken:
        counter += 1
        suffix = f"_{counter}"
        candidate = f"{name[: 64 - len(suffix)]}{suffix}"
    taken.add(candidate)
    return candidate


def _action(row: ActionRow, name: str) -> dict[str, Any]:
    action: dict[str, Any] = {
        "name": name,
        "title": row.title,
        "effect": known_effect(row.effect),
        "auth": known_auth(row.auth),
    }
    optional = {
        "description": row.description or None,
        "method": row.method,
        "endpoint": row.endpoint,
        "scope": row.scope,
        "cost": row.cost,
        "input": row.input_schema or None,
        "output": row.output_schema,
    }
    return action | {key: value for key, value in optional.items() if value is not None}


def _flow(row: FlowRow, names: dict[str, str], taken: set[str]) -> dict[str, Any] | None:
    """The flow with its steps naming the exported actions; None (left out) when a step names
    an action the store does not hold, which a manifest could not express."""
    steps = []
    for step in row.steps or []:
        action = names.get(str(step.get("action"))) if isinstance(step, dict) else None
        if action is None:
            return None
        out: dict[str, Any] = {"action": action, "with": step.get("bindings") or {}}
        if step.get("title"):
            out["title"] = step["title"]
        steps.append(out)
    if not steps or row.name in taken:
        return None
    taken.add(row.name)
    flow: dict[str, Any] = {
        "name": row.name,
        "title": row.title,
        "steps": steps,
        "input": row.input_schema or {"type": "object"},
    }
    if row.description:
        flow["description"] = row.description
    return flow

"""Store rows -> tantivy documents: the index schema and how each action and flow is indexed.

One document per action and per flow. Raw fields (id, kind, site, effect, same_origin) are for
filtering and deletion; weighted text fields use the English stemmer; ``payload`` holds the
JSON of everything a FindResult needs, so /find never touches the database.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

import tantivy
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.models import ActionRow, Document, FlowRow, Site
from registry.schemas import EFFECTS
from registry.urls import split_identifier

# Bump whenever the schema or the text put into it changes: an index with another version is
# replaced by an empty generation on open, which the next sync fills.
SCHEMA_VERSION = 1
RAW_FIELDS = ("id", "kind", "site", "effect", "same_origin")
TEXT_FIELDS = ("name", "title", "type", "flow", "description", "params", "site_text")
SITE_BATCH = 200  # sites per query while loading rows


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for name in RAW_FIELDS:
        builder.add_text_field(name, stored=name == "id", tokenizer_name="raw")
    for name in TEXT_FIELDS:
        builder.add_text_field(name, tokenizer_name="en_stem")
    builder.add_bytes_field("payload", stored=True, indexed=False)
    return builder.build()


SCHEMA = build_schema()


def type_words(action_type: str | None) -> str:
    """``SearchAction`` or ``https://schema.org/BuyAction`` -> ``search`` / ``buy``."""
    if not action_type:
        return ""
    base = re.split(r"[/#:]", action_type)[-1].removesuffix("Action")
    return split_identifier(base)


def _param_names(schema: dict[str, Any] | None) -> str:
    props = (schema or {}).get("properties")
    return " ".join(split_identifier(str(k)) for k in props) if isinstance(props, dict) else ""


def _effect(value: str) -> str:
    # The model never labels an unknown action read; an unexpected value in a row is "write".
    return value if value in EFFECTS else "write"


def _document(
    raw: dict[str, str], text: dict[str, str], payload: dict[str, Any]
) -> tantivy.Document:
    doc = tantivy.Document()
    for name, value in raw.items():
        doc.add_text(name, value)
    for name, value in text.items():
        if value:
            doc.add_text(name, value)
    doc.add_bytes("payload", json.dumps(payload, separators=(",", ":")).encode())
    return doc


def _site_text(site: Site) -> str:
    return " ".join(filter(None, [site.name, site.description, split_identifier(site.host)]))


def action_document(
    site: Site, row: ActionRow, source: dict[str, str], flow_titles: Sequence[str]
) -> tantivy.Document:
    effect = _effect(row.effect)
    raw = {"id": row.id, "kind": "action", "site": site.host, "effect": effect,
           "same_origin": "true" if row.same_origin else "false"}
    text = {"name": f"{split_identifier(row.name)} {row.name}", "title": row.title,
            "type": type_words(row.type), "flow": " ".join(flow_titles),
            "description": row.description, "params": _param_names(row.input_schema),
            "site_text": _site_text(site)}
    payload = {"id": row.id, "kind": "action", "site": site.host, "name": row.name,
               "title": row.title, "description": row.description, "effect": effect,
               "type": row.type, "method": row.method, "endpoint": row.endpoint,
               "input_schema": row.input_schema or {}, "source": source}
    return _document(raw, text, payload)


def flow_document(site: Site, row: FlowRow, source: dict[str, str]) -> tantivy.Document:
    effect = _effect(row.effect)
    steps = [s for s in row.steps or [] if isinstance(s, dict) and s.get("action")]
    step_text = " ".join(
        f"{split_identifier(str(s['action']))} {s.get('title') or ''}" for s in steps
    )
    raw = {"id": row.id, "kind": "flow", "site": site.host, "effect": effect,
           "same_origin": "true"}
    text = {"name": f"{split_identifier(row.name)} {row.name}", "title": row.title,
            "flow": step_text, "description": row.description,
            "params": _param_names(row.input_schema), "site_text": _site_text(site)}
    payload = {"id": row.id, "kind": "flow", "site": site.host, "name": row.name,
               "title": row.title, "description": row.description, "effect": effect,
               "type": None, "method": None, "endpoint": None,
               "input_schema": row.input_schema or {}, "steps": steps, "source": source}
    return _document(raw, text, payload)


def site_documents(session: Session, hosts: Sequence[str]) -> Iterator[tantivy.Document]:
    """Every action and flow document of the sites ``hosts``, a batch of sites at a time."""
    for start in range(0, len(hosts), SITE_BATCH):
        chunk = hosts[start : start + SITE_BATCH]
        batch = session.scalars(select(Site).where(Site.host.in_(chunk)))
        yield from _batch_documents(session, {site.id: site for site in batch})


def _batch_documents(session: Session, sites: dict[int, Site]) -> Iterator[tantivy.Document]:
    flows = session.execute(
        select(FlowRow, Document.url, Document.format)
        .join(Document, FlowRow.document_id == Document.id)
        .where(FlowRow.site_id.in_(sites))
        .order_by(FlowRow.id)
    ).all()
    # An action is also found by the titles of the flows it is a step of.
    flow_titles: dict[tuple[int, str], list[str]] = defaultdict(list)
    for flow, url, fmt in flows:
        for step in flow.steps or []:
            if isinstance(step, dict) and step.get("action"):
                flow_titles[(flow.site_id, str(step["action"]))].append(flow.title)
        yield flow_document(sites[flow.site_id], flow, _source(url, fmt))
    actions = session.execute(
        select(ActionRow, Document.url, Document.format)
        .join(Document, ActionRow.document_id == Document.id)
        .where(ActionRow.site_id.in_(sites))
        .order_by(ActionRow.id)
    )
    for action, url, fmt in actions:
        titles = flow_titles.get((action.site_id, action.name), [])
        yield action_document(sites[action.site_id], action, _source(url, fmt), titles)


def _source(url: str, fmt: str | None) -> dict[str, str]:
    return {"url": url, "format": fmt or "unknown"}

"""Store rows -> tantivy documents: the index schema and how each action and flow is indexed.

One document per action and per flow. Raw fields are for filtering and deletion; weighted text
fields use the ``en_fold`` analyzer (registry.index.text); ``payload`` holds the wire JSON of
the result minus its score, so /find neither touches the database nor re-serialises.
An action's own part comes from registry.index.parts (mostly stored with the action); this
module adds its site's and its flows' part. registry.index.load reads the rows.
"""

from __future__ import annotations

import re
from base64 import b64encode
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tantivy

from registry.db.tables import Site
from registry.index.parts import (
    DUMP,
    WORD_RUNS,
    ActionParts,
    cached_type_words,
    head,
    known_auth,
    known_effect,
    name_text,
    param_text,
    site_words,
    without_empty,
)
from registry.index.text import ANALYZER, NO_TERMS
from registry.index.vectors import stored_b64
from registry.model.identifiers import split_identifier
from registry.model.results import LIVE_FIELD, result_payload
from registry.model.urls import key_host

# Single values matched whole, to filter by (``kind`` to count, ``site`` to delete by, ``id``
# to find the documents the vector index names: registry.search.meaning).
RAW_FIELDS = (
    "kind",
    "site",
    "domain",
    "effect",
    "type",
    "format",
    "method",
    "auth",
    "same_origin",
    "live",  # the liveness status of its endpoint (registry.store.liveness), when probed
    "id",
)
# Bumped when the schema changes but the stored parts do not (INDEX_VERSION covers both): a
# generation of another layout is replaced on open. 1: ``id`` has terms.
LAYOUT = 1
# Stored so a page can be grouped (per site, a flow's steps under it) without the payload.
STORED_FIELDS = ("id", "kind", "site", "key", "step", "live")
# ``all`` is every text part of an action (name split, title, type and effect words, titles of
# its flows, description, parameters, site name and description); ``head`` holds the words
# an action leads with (first word of its name and of its title, its Schema.org type): the
# verb it does, matched against a query's leading verb. Params are also indexed alone.
# Each more text field costs build time (the analyzer runs per field), so parts that are not
# scored on their own are not indexed alone. ``about`` is the publisher's whole text (the
# action's and its site's ``about``: a plugin's description_for_model past its display cap,
# OpenAPI tags, A2A examples), scored with its own weight (registry.search.plan FIELD_BOOSTS).
TEXT_FIELDS = ("all", "head", "params", "about")


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for name in dict.fromkeys(RAW_FIELDS + STORED_FIELDS):
        # Stored fields no query asks for (``key``, ``step``) get no terms: nearly one new term
        # per document, each costs an eighth of tantivy's build time. Raw values keep
        # no frequencies or positions: each is said once, and a filter is a plain match.
        analyzer = "raw" if name in RAW_FIELDS else NO_TERMS
        builder.add_text_field(
            name, stored=name in STORED_FIELDS, tokenizer_name=analyzer, index_option="basic"
        )
    for name in TEXT_FIELDS:
        # No positions: queries are bags of terms, and positions cost build time and space.
        # ``head`` keeps no frequencies either: saying its verb twice makes no action more so.
        option = "basic" if name == "head" else "freq"
        builder.add_text_field(name, tokenizer_name=ANALYZER, index_option=option)
    builder.add_bytes_field("payload", stored=True, indexed=False)
    builder.add_bytes_field("vec", stored=True, indexed=False)  # registry.index.vectors
    return builder.build()


SCHEMA = build_schema()


def domains(key: str) -> list[str]:
    """``a.shop.example`` -> itself, ``shop.example``: a site filter matches any parent. A site
    on another port (``a.shop.example:8080``, registry.model.urls.site_key) is found by its own
    key and, like every site on that host, by the bare host and its parents."""
    host = key_host(key)
    labels = host.split(".") if ":" not in host else [host]  # an IPv6 literal has no parents
    parents = [".".join(labels[i:]) for i in range(max(len(labels) - 1, 1))]
    return parents if key == host else [key, *parents]


@dataclass(frozen=True, slots=True)
class SiteInfo:
    """What every document of one site repeats, worked out once per site."""

    host: str
    domains: str  # JSON list
    text: str
    about: str  # name and description as they are, for the vectors (index_parts.site_words)
    whole: str  # the site's index-only text (sites.about), for the ``about`` field

    @classmethod
    def of(cls, site: Site) -> SiteInfo:
        words = [with_parts(site.name), with_parts(site.description), split_identifier(site.host)]
        return cls(
            site.host,
            DUMP(domains(site.host)),
            " ".join(filter(None, words)),
            site_words(site.name, site.description, site.about),
            site.about or "",
        )


def _document(fields: str, text: str, payload: str, site: SiteInfo, about: str = "") -> str:
    """The document as the JSON text ``IndexWriter.add_json`` reads (a bytes field as base64):
    ``fields`` (a JSON object) with the site's domains, the ``all`` text and the payload.

    Not a ``tantivy.Document``: ``Document.from_dict`` takes a bytes value apart one int at
    a time (about 9 us for a payload) and ``add_document`` then copies the whole document;
    tantivy parses this text in Rust, outside the GIL."""
    payload_b64 = b64encode(payload.encode()).decode()
    about = " ".join(filter(None, [about, site.whole]))
    more = f'"about":{DUMP(about)},' if about else ""
    return (
        f'{{"domain":{site.domains},"all":{DUMP(text)},{more}"payload":"{payload_b64}",{fields[1:]}'
    )


def action_document(
    site: SiteInfo, parts: ActionParts, flows: Sequence[str], live: dict[str, Any] | None = None
) -> str:
    """``parts`` and what the action's site and its flows add: their words in ``all``; with
    ``live`` (its endpoint's last probe, registry.model.liveness.Liveness) the result says it
    and ``live=true`` and the ranking read its status."""
    text = " ".join(filter(None, [parts.index_text, *flows, site.text]))
    fields, payload = parts.index_fields, parts.payload
    if live is not None:
        payload = f"{payload[:-1]},{DUMP(LIVE_FIELD)}:{DUMP(live)}}}"
        fields = f'{{"live":{DUMP(live["status"])},{fields[1:]}'
    return _document(fields, text, payload, site, parts.about)


def steps_of(row: Any) -> list[dict[str, Any]]:
    steps = [s for s in row.steps or [] if isinstance(s, dict) and s.get("action")]
    return [
        {"action": str(s["action"]), "title": s.get("title"), "bindings": s.get("bindings") or {}}
        for s in steps
    ]


def flow_document(site: SiteInfo, row: Any, source: dict[str, str]) -> str:
    """A flow, worked out whole at build time: sites have few."""
    effect, steps = known_effect(row.effect), steps_of(row)
    step_text = " ".join(f"{split_identifier(s['action'])} {s['title'] or ''}" for s in steps)
    fields = {
        "id": row.id,
        "kind": "flow",
        "site": site.host,
        "key": row.name,
        "effect": effect,
        "format": source["format"],
        "same_origin": "true",
        "auth": known_auth(row.auth),
        "step": [s["action"] for s in steps],
    }
    name = split_identifier(row.name)
    names, title = name_text(row.name, name, row.title)
    params = param_text(row.input_schema)
    fields |= {"head": head(name, row.title, None), "params": params}
    text = [names, title, cached_type_words(None, effect), step_text, row.description, params]
    fields["vec"] = stored_b64(" ".join(filter(None, [*text, site.about])))
    text.append(site.text)
    payload = result_payload(
        {
            "id": row.id,
            "kind": "flow",
            "site": site.host,
            "name": row.name,
            "title": row.title,
            "description": row.description,
            "effect": effect,
            "type": None,
            "method": None,
            "endpoint": None,
            "origin": "same",
            "verified": True,
            "auth": known_auth(row.auth),
            "scope": row.scope,
            "steps": steps,
            "source": source,
        },
        {"input_schema": row.input_schema, "output_schema": None, "cost": row.cost},
    )
    return _document(DUMP(without_empty(fields)), " ".join(filter(None, text)), payload, site)


# Where an identifier has parts the analyzer keeps together: a case change inside a word, or
# letters next to digits ("SoundCloud", "getProducts", "wgs84").
_JOINT = re.compile(r"[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]")


def with_parts(text: str | None) -> str:
    """``text`` and the parts of its compound words: "SoundCloud Scraper" is also found by
    "sound cloud", as an action name split into words is by its whole ("getproducts").
    Used on site names and descriptions (once per site, where brand names live); per action
    description it would cost ~4 us a document of build time for little."""
    if not text or not _JOINT.search(text):  # most text: one scan in C, nothing added
        return text or ""
    parts = [split_identifier(word) for word in WORD_RUNS.findall(text) if _JOINT.search(word)]
    return f"{text} {' '.join(parts)}"

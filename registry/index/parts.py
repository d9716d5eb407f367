"""An action's own part of its index document, worked out once, when the action is stored.

A full rebuild at a million actions spent most of its time in Python turning each row into
words and JSON (about 35 us an action). None of that depends on anything but the row, its
site's host and its document, all fixed while the row exists (a changed document replaces its
rows), so registry.store.rows computes it with the row and registry.index.documents only adds
what the site and its flows contribute. Rows stored under another ``INDEX_VERSION`` (or before
these columns existed) are worked out the same way at build time instead."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from registry.index.text import type_base, type_words
from registry.index.vectors import active, stored_b64
from registry.model.identifiers import split_identifier
from registry.model.results import PAYLOAD_JSON, result_payload
from registry.model.sanitize import shorten
from registry.model.schemas import AUTHS, EFFECTS

# Bump whenever the schema or the text put into it changes: an index with another version is
# replaced by an empty generation on open, which the next sync fills; stored parts with
# another version are worked out again by every build until the action is stored again or
# registry.store.parts_refresh.refresh_index_parts runs.
# The meaning model's number is added (registry.index.vectors: 0 for wordllama, 1000 for e5), so
# a change of model works every action's vector out again.
# 15: WordLlama's vectors at 128 dims (64 bytes; the vector index keeps the first 64); 14
# was a trial of 256 that did not ship;
# 13: a site on a non-default port is filtered by host:port and by host (documents.domains);
# 12: results carry origin and verified; 11: the live field, liveness in results; 10:
# needs_approval; 9: the publisher's whole text (about); 8: results carry auth, scope, cost and
# output_schema
INDEX_VERSION = 15 + active().version
PARAM_TEXT_MAX = 600  # parameter descriptions add recall; long ones add mostly noise
# What a site's about adds to each of its actions' vectors: its first words say what the site
# is for; thousands of characters of it would make every action of the site mean the same.
SITE_VECTOR_MAX = 640
DUMP = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


@dataclass(frozen=True, slots=True)
class ActionParts:
    """What the stored columns of the same names hold (see ``registry.db.tables.ActionRow``)."""

    index_fields: str  # JSON object: the document's fields that are the action's alone
    index_text: str  # the action's own words for the ``all`` field
    payload: str  # the result's wire JSON (GET /find's, minus the score)
    about: str = ""  # the action's own index-only text (its ``about`` column), for ``about``


def action_parts(
    row: Any,
    json_texts: dict[str, str | None],
    host: str,
    source: dict[str, str],
    about: str = "",
) -> ActionParts:
    """``row``: an ActionRow, or a row of its columns; ``json_texts``: its JSON columns
    (registry.model.results.PAYLOAD_JSON: input_schema, output_schema, cost) as JSON text;
    ``source``: the document it came from ({"url", "format"}); ``about``: its site's name and
    description (``site_words``), for the action's vector. ``all`` reads the display
    description; the action's ``about`` (the publisher's whole text) goes to its own field
    (registry.index.documents) and, instead of the description, to the vector."""
    effect, kind = known_effect(row.effect), type_base(row.type)
    name = split_identifier(row.name)
    names, title = name_text(row.name, name, row.title)
    params = param_text(json_texts["input_schema"])
    fields = {
        "id": row.id,
        "kind": "action",
        "site": host,
        "key": row.name,
        "effect": effect,
        "format": source["format"],
        "type": kind.lower(),
        "method": (row.method or "").upper(),
        "auth": known_auth(row.auth),
        "same_origin": "true" if row.same_origin else "false",
        "head": head(name, row.title, row.type),
        "params": params,
    }
    words = [names, title, cached_type_words(row.type, effect)]
    index_text = " ".join(filter(None, [*words, row.description, params]))
    # What it means (registry.index.vectors), 64 bytes: its whole text with its site's words
    # ("Worldwide Recipes: Food API" says what "Get Suggestions" suggests).
    meaning = [*words, row.about or row.description, params, about]
    fields["vec"] = stored_b64(" ".join(filter(None, meaning)))
    return ActionParts(
        DUMP(without_empty(fields)),
        index_text,
        action_payload(row, json_texts, host, source),
        row.about or "",
    )


def action_payload(
    row: Any, json_texts: dict[str, str | None], host: str, source: dict[str, str]
) -> str:
    """The action's result JSON (GET /find's, minus the score): what ``payload`` stores."""
    return result_payload(
        {
            "id": row.id,
            "kind": "action",
            "site": host,
            "name": row.name,
            "title": row.title,
            "description": row.description,
            "effect": known_effect(row.effect),
            "type": row.type,
            "method": row.method,
            "endpoint": row.endpoint,
            "origin": "same" if row.same_origin else "cross",
            "verified": bool(row.same_origin or row.verified),
            "auth": known_auth(row.auth),
            "scope": row.scope,
            "source": source,
        },
        json_texts,
    )


def json_texts(row: Any) -> dict[str, str | None]:
    """An ActionRow's JSON columns as the JSON text ``action_parts`` takes: what CAST(column
    AS TEXT) reads back on SQLite. ASCII: a lone surrogate in a schema must not reach the
    UTF-8 encoding of the index document."""
    values = {name: getattr(row, name) for name in PAYLOAD_JSON}
    return {name: None if value is None else json.dumps(value) for name, value in values.items()}


def site_words(name: str | None, description: str | None, about: str | None = None) -> str:
    """A site's words for its actions' vectors: its name and its about (the start of it), else
    its description."""
    return " ".join(filter(None, [name, shorten(about, SITE_VECTOR_MAX) if about else description]))


def without_empty(fields: dict[str, Any]) -> dict[str, Any]:
    # An empty value is no value: an empty ``params`` would still count as a field value.
    return {k: v for k, v in fields.items() if v or k == "head"}


def known_effect(value: str) -> str:
    # The model never labels an unknown action read; an unexpected value in a row is "write".
    return value if value in EFFECTS else "write"


def known_auth(value: str | None) -> str:
    return value if value in AUTHS else "unknown"


@functools.lru_cache(maxsize=4096)
def param_text(schema_json: str | None) -> str:
    """Top-level parameter names (identifiers split) and descriptions of a JSON Schema text.

    Cached: sites repeat the same few parameter sets across many actions."""
    if not schema_json or '"properties"' not in schema_json:
        return ""
    props = json.loads(schema_json).get("properties")
    if not isinstance(props, dict):
        return ""
    parts = []
    for key, spec in props.items():
        parts.append(split_identifier(str(key)))
        if isinstance(spec, dict) and isinstance(spec.get("description"), str):
            parts.append(spec["description"])
    return " ".join(parts)[:PARAM_TEXT_MAX]


cached_type_words = functools.lru_cache(maxsize=1024)(type_words)


def head(name: str, title: str, action_type: str | None) -> str:
    """The words an action leads with, equally long for every action so none wins on length:
    ``add_to_cart`` / "Add to cart" -> "add add"; a BuyAction adds "buy"."""
    words = [name.split(" ", 1)[0], title.split(" ", 1)[0], type_base(action_type)]
    return " ".join(w for w in words if w)


# Alphanumeric runs: the words the analyzer sees in identifiers and titles.
WORD_RUNS = re.compile(r"[^\W_]+")


def _said(text: str | None, words: str) -> bool:
    """Whether ``text`` holds just ``words`` to the analyzer (same lower-case alphanumeric
    runs); the common cases are decided without a regex."""
    if not text:
        return False
    plain = text.lower()
    return (
        plain == words
        or plain.replace("_", " ") == words
        or " ".join(WORD_RUNS.findall(plain)) == words
    )


def name_text(name: str, words: str, title: str | None) -> tuple[str, str]:
    """The name's words (``words``: ``name`` split) and the title, each said once: (name
    text, title text).

    Every part of ``all`` counts in its term frequencies, so text said twice weighs twice.
    ``add_to_cart`` titled "Add to cart" would put "add cart" in three times (split name,
    raw name, title) and so outweigh a description for no reason but repetition. The raw
    name goes in only when it holds a term of its own (``getProducts`` -> "getproducts");
    the title only when it says more than the name."""
    if _said(name, words):
        return words, "" if _said(title, words) else (title or "")
    raw = " ".join(WORD_RUNS.findall(name.lower()))
    return f"{words} {name}", "" if _said(title, words) or _said(title, raw) else (title or "")

"""Store rows -> tantivy documents: the index schema and how each action and flow is indexed.

One document per action and per flow. Raw fields are for filtering and deletion; weighted text
fields use the ``en_fold`` analyzer (registry.index_text); ``payload`` holds the wire JSON of
the result minus its score, so /find neither touches the database nor re-serialises.
registry.index_rows reads the rows.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tantivy

from registry.index_text import ANALYZER, type_base, type_words
from registry.models import Site
from registry.schemas import EFFECTS
from registry.urls import split_identifier

# Bump whenever the schema or the text put into it changes: an index with another version is
# replaced by an empty generation on open, which the next sync fills.
SCHEMA_VERSION = 4
RAW_FIELDS = ("id", "kind", "site", "key", "step", "domain", "effect", "type", "format",
              "method", "auth", "same_origin")
# Stored so a page can be grouped (per site, a flow's steps under it) without the payload.
STORED_FIELDS = ("id", "kind", "site", "key", "step")
# ``all`` is every text part of an action (name split, title, type and effect words, titles of
# its flows, description, parameters, site name and description); ``head`` holds the words
# an action leads with (first word of its name and of its title, its Schema.org type): the
# verb it does, matched against a query's leading verb. Params are also indexed alone.
# Each more text field costs build time (the analyzer runs per field), so parts that are not
# scored on their own are not indexed alone.
TEXT_FIELDS = ("all", "head", "params")
PARAM_TEXT_MAX = 600  # parameter descriptions add recall; long ones add mostly noise
_DUMP = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for name in RAW_FIELDS:
        builder.add_text_field(name, stored=name in STORED_FIELDS, tokenizer_name="raw")
    for name in TEXT_FIELDS:
        # No positions: queries are bags of terms, and positions cost build time and space.
        # ``head`` keeps no frequencies either: saying its verb twice makes no action more so.
        option = "basic" if name == "head" else "freq"
        builder.add_text_field(name, tokenizer_name=ANALYZER, index_option=option)
    builder.add_bytes_field("payload", stored=True, indexed=False)
    return builder.build()


SCHEMA = build_schema()


def domains(host: str) -> list[str]:
    """``a.shop.example`` -> itself, ``shop.example``: a site filter matches any parent."""
    labels = host.split(".")
    return [".".join(labels[i:]) for i in range(max(len(labels) - 1, 1))]


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


_type_words = functools.lru_cache(maxsize=1024)(type_words)


def _effect(value: str) -> str:
    # The model never labels an unknown action read; an unexpected value in a row is "write".
    return value if value in EFFECTS else "write"


@dataclass(frozen=True, slots=True)
class SiteInfo:
    """What every document of one site repeats, worked out once per site."""

    host: str
    domains: list[str]
    text: str

    @classmethod
    def of(cls, site: Site) -> SiteInfo:
        words = [with_parts(site.name), with_parts(site.description), split_identifier(site.host)]
        return cls(site.host, domains(site.host), " ".join(filter(None, words)))


def _document(fields: dict[str, Any], text: dict[str, str], payload: bytes) -> Any:
    fields = {k: v for k, v in fields.items() if v}
    fields["head"] = text["head"]
    if text["params"]:
        fields["params"] = text["params"]
    fields["all"] = " ".join(v for k, v in text.items() if v and k != "head")
    fields["payload"] = payload
    return tantivy.Document.from_dict(fields, SCHEMA)


def _payload(fields: dict[str, Any], schema_json: str | None) -> bytes:
    """The result's JSON; the stored input schema text goes in as it is (no decode, encode)."""
    return b"%s,\"input_schema\":%s}" % (_DUMP(fields)[:-1].encode(),
                                         (schema_json or "{}").encode())


def _head(name: str, title: str, action_type: str | None) -> str:
    """The words an action leads with, equally long for every action so none wins on length:
    ``add_to_cart`` / "Add to cart" -> "add add"; a BuyAction adds "buy"."""
    words = [name.split(" ", 1)[0], title.split(" ", 1)[0], type_base(action_type)]
    return " ".join(w for w in words if w)


_RUNS = re.compile(r"[^\W_]+")
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
    parts = [split_identifier(word) for word in _RUNS.findall(text) if _JOINT.search(word)]
    return f"{text} {' '.join(parts)}"


def _said(text: str | None, words: str) -> bool:
    """Whether ``text`` holds just ``words`` to the analyzer (same lower-case alphanumeric
    runs); the common cases are decided without a regex."""
    if not text:
        return False
    plain = text.lower()
    return plain == words or plain.replace("_", " ") == words or \
        " ".join(_RUNS.findall(plain)) == words


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
    raw = " ".join(_RUNS.findall(name.lower()))
    return f"{words} {name}", "" if _said(title, words) or _said(title, raw) else (title or "")


def action_document(site: SiteInfo, row: Any, source: dict[str, str], flows: Sequence[str]) -> Any:
    effect = _effect(row.effect)
    fields = {"id": row.id, "kind": "action", "site": site.host, "key": row.name,
              "domain": site.domains, "effect": effect, "format": source["format"],
              "type": type_base(row.type).lower(), "method": (row.method or "").upper(),
              "auth": row.auth or "unknown", "same_origin": "true" if row.same_origin else "false"}
    name = split_identifier(row.name)
    names, title = name_text(row.name, name, row.title)
    text = {"head": _head(name, row.title, row.type), "name": names,
            "title": title, "verbs": _type_words(row.type, effect), "flow": " ".join(flows),
            "description": row.description, "params": param_text(row.input_schema),
            "site_text": site.text}
    payload = {"id": row.id, "kind": "action", "site": site.host, "name": row.name,
               "title": row.title, "description": row.description, "effect": effect,
               "type": row.type, "method": row.method, "endpoint": row.endpoint,
               "source": source}
    return _document(fields, text, _payload(payload, row.input_schema))


def steps_of(row: Any) -> list[dict[str, Any]]:
    steps = [s for s in row.steps or [] if isinstance(s, dict) and s.get("action")]
    return [{"action": str(s["action"]), "title": s.get("title"),
             "bindings": s.get("bindings") or {}} for s in steps]


def flow_document(site: SiteInfo, row: Any, source: dict[str, str]) -> Any:
    effect, steps = _effect(row.effect), steps_of(row)
    step_text = " ".join(f"{split_identifier(s['action'])} {s['title'] or ''}" for s in steps)
    fields = {"id": row.id, "kind": "flow", "site": site.host, "key": row.name,
              "domain": site.domains, "effect": effect, "format": source["format"],
              "same_origin": "true", "auth": "unknown", "step": [s["action"] for s in steps]}
    name = split_identifier(row.name)
    names, title = name_text(row.name, name, row.title)
    text = {"head": _head(name, row.title, None), "name": names,
            "title": title, "verbs": _type_words(None, effect), "flow": step_text,
            "description": row.description, "params": param_text(row.input_schema),
            "site_text": site.text}
    payload = {"id": row.id, "kind": "flow", "site": site.host, "name": row.name,
               "title": row.title, "description": row.description, "effect": effect,
               "type": None, "method": None, "endpoint": None, "steps": steps,
               "source": source}
    return _document(fields, text, _payload(payload, row.input_schema))

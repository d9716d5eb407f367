"""One Schema.org potentialAction read into an Action (a helper of schemaorg, not a format):
its first usable target, its method, a unique machine name and a title. ``Doc`` is what
reading one document accumulates, shared by every action of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from registry.formats._common import described, http_method, title_from
from registry.formats._jsonld import Graph, Node, local_types
from registry.formats._schemaorg_input import input_schema, output_schema
from registry.model.effects import infer_effect, type_verb
from registry.model.identifiers import split_identifier
from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Diagnostic, Severity
from registry.model.urls import absolute

MAX_TARGETS = 16
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)+")
# Actions on these entities act on the whole site: "search", not "search_website".
_SITE_LEVEL = {"WebSite", "WebPage", "WebAPI", "WebApplication", "Organization", "Corporation"}


@dataclass
class Doc:
    """What converting one document accumulates."""

    url: str
    graph: Graph
    diags: list[Diagnostic]
    names: set[str] = field(default_factory=set)  # machine names given out so far
    site: tuple[int, Node] | None = None  # (rank in schemaorg._SITE_TYPES, entity)

    def diag(self, code: str, path: str, message: str, severity: Severity = "warning") -> None:
        self.diags.append(Diagnostic(code=code, path=path, message=message, severity=severity))

    def resolve(self, value: Any) -> Any:
        return self.graph.resolve(value)


def read_action(node: Node, owner: Node, path: str, doc: Doc) -> Action | None:
    types = [t for t in local_types(node) if t.endswith("Action")]
    type_name = types[0] if types else None
    if type_name is None and node.get("@type") is not None:
        doc.diag("invalid-type", f"{path}['@type']", "not a schema.org Action type", "info")
    target = _target(doc.resolve(node.get("target")), path, doc)
    if target is None:
        return None
    endpoint, entry = target
    if type_verb(type_name or "") in ("read", "view") and _is_page(endpoint, owner, doc.url):
        doc.diag("noise-readaction", path, f"{type_name} targets the page itself; skipped", "info")
        return None
    method = _method(entry, type_name, path, doc)
    name, title = _naming(node, owner, type_name, path, doc)
    effect = infer_effect(type_name, method, name)
    if method is None and "httpMethod" not in entry and _entry_point(entry):
        # Seed 000: an EntryPoint's httpMethod "Default: GET". Only a method the source
        # states says what the action does, so the effect was inferred without it.
        method = "GET"
    reads = effect == "read" and method in (None, "GET", "HEAD")
    own = node.get("description")  # else its owner's (the WebSite, the Organization)
    description, about = described(
        own if clean_text(own) else owner.get("description"), f"{path}.description", doc.diags
    )
    return Action(
        name=name,
        title=title,
        type=type_name,
        method=method,
        endpoint=endpoint,
        description=description,
        about=about,
        effect=effect,
        auth="unknown",
        input_schema=input_schema(node, endpoint, path, doc.resolve, doc.diags, reads)
        | _media(entry, method),
        output_schema=output_schema(node, path, doc.resolve, doc.diags, reads),
    )


def _target(value: Any, path: str, doc: Doc) -> tuple[str, Node] | None:
    """The first usable (absolute http(s)) target and its EntryPoint; the rest diagnosed."""
    if value is None:
        doc.diag("missing-field", f"{path}.target", "no target; action skipped")
        return None
    candidates = value if isinstance(value, list) else [value]
    chosen = None
    for index, raw in enumerate(candidates[:MAX_TARGETS]):
        entry = doc.resolve(raw)
        entry = entry if isinstance(entry, dict) else {}
        template = raw if isinstance(raw, str) else entry.get("urlTemplate") or entry.get("url")
        endpoint = absolute(template, doc.url)
        where = f"{path}.target" + (f"[{index}]" if isinstance(value, list) else "")
        if chosen is None and endpoint:
            chosen = (endpoint, entry)
        elif endpoint:
            doc.diag("target-skipped", where, "alternative target ignored", "info")
        else:
            doc.diag("target-skipped", where, "not an http(s) URL or EntryPoint", "info")
    if chosen is None:
        doc.diag("invalid-endpoint", f"{path}.target", "no usable http(s) target; skipped")
    return chosen


_MEDIA = re.compile(r"[a-z]+/[a-z0-9.+-]{1,80}")


def _media(entry: Node, method: str | None) -> dict[str, str]:
    """How the EntryPoint wants its request body sent (a WebMCP form's enctype), for the
    input schema's ``x-content-type``; nothing when it does not say. ``encodingType`` is the
    request's; ``contentType`` is the response's (seed 000), read as the request's only when
    there is a body to send and nothing else says how."""
    has_body = method not in ("GET", "HEAD", "DELETE", "OPTIONS")
    raw = entry.get("encodingType") or (entry.get("contentType") if has_body else None)
    raw = raw[0] if isinstance(raw, list) and raw else raw
    media = raw.split(";")[0].strip().lower() if isinstance(raw, str) else ""
    return {"x-content-type": media} if _MEDIA.fullmatch(media) else {}


def _page_key(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    query = f"?{parts.query}" if parts.query else ""
    return f"{(parts.hostname or '').removeprefix('www.')}{parts.path.rstrip('/')}{query}"


def _is_page(endpoint: str, owner: Node, page_url: str) -> bool:
    """A Yoast-style ReadAction: the target is the page (or its entity) itself, not a service."""
    pages = {_page_key(page_url), _page_key(owner.get("url")), _page_key(owner.get("@id"))}
    return "{" not in endpoint and _page_key(endpoint) in pages


def _method(entry: Node, type_name: str | None, path: str, doc: Doc) -> str | None:
    raw = entry.get("httpMethod")
    raw = raw[0] if isinstance(raw, list) and raw else raw
    if method := http_method(raw, f"{path}.target.httpMethod", doc.diags):
        return method
    if type_name and infer_effect(type_name, None, None) == "read":
        return "GET"
    if entry.get("encodingType"):
        return "POST"  # the request's body is described, so something is sent
    return None  # (``contentType`` is the response's: seed 000, Schema.org)


def _entry_point(entry: Node) -> bool:
    return "urlTemplate" in entry or "EntryPoint" in local_types(entry)


def _naming(node: Node, owner: Node, type_name: str | None, path: str, doc: Doc) -> tuple[str, str]:
    """A unique machine name and a title, from the action's name or its type and entity."""
    verb = split_identifier(type_name.removesuffix("Action")) if type_name else "action"
    owner_types = local_types(owner)
    label = clean_text(node.get("name"), TITLE_MAX)
    if label:  # a WebMCP tool name is an identifier: "search_products" -> "Search products"
        base = safe_name(label.lower())
        title = title_from(label) if _IDENTIFIER.fullmatch(label) else label
    elif not owner_types or _SITE_LEVEL & set(owner_types):
        base, title = safe_name(verb), verb.capitalize()
    else:
        base, title = safe_name(f"{verb} {split_identifier(owner_types[0])}"), verb.capitalize()
    owner_name = clean_text(owner.get("name"), TITLE_MAX)
    if not label and owner_name:
        title = f"{title} {owner_name}"[:TITLE_MAX]
    name, counter = base, 1
    while name in doc.names:
        counter += 1
        name = f"{base[:58]}_{counter}"
    if name != base and label:
        doc.diag("duplicate-name", f"{path}.name", f"{base!r} already used; named {name!r}", "info")
    doc.names.add(name)
    return name, title

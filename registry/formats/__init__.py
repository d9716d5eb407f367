"""Format facade: sniff a raw document's format from its content and normalise it.

Each format is one module with the same small surface (extruct's "one module per format"):

    NAME: str                      the Manifest.format value, e.g. "agent-actions"
    PATHS: tuple[str, ...]         well-known paths where the crawler should look for it
    matches(data) -> bool          does this parsed document look like the format?
    to_manifest(data, url, site, refs) -> Manifest

Modules get data that is already parsed (JSON, a YAML mapping, or the text itself for text
formats like llms.txt), at most MAX_BYTES long and MAX_DEPTH deep, plus ``refs``: through it
they name the other documents they point at (``Manifest.references``) and read those the
caller could supply (``normalise(..., resolve=...)``). The facade then enforces what must hold
for every format: bounded actions and diagnostics, unique names, and flags on endpoints that
leave the site, use plain http on an https site, or point at a private address. ``normalise``
never raises; every problem becomes a Diagnostic.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from registry.formats import (
    a2a,
    agent_actions,
    agents_json,
    ai_plugin,
    api_catalog,
    ard,
    llms_txt,
    mcp,
    openapi,
    schemaorg,
    wildcard,
)
from registry.formats._hints import HINTS, with_hint
from registry.formats._load import MAX_BYTES, MAX_DEPTH, Unusable, load
from registry.formats._references import MAX_RESOLVED, References, Resolve
from registry.schemas import Action, Diagnostic, Manifest, RawDocument
from registry.urls import is_private_host, same_origin, site_of

__all__ = ["FORMATS", "HINTS", "MAX_ACTIONS", "MAX_BYTES", "MAX_DEPTH", "MAX_RESOLVED",
           "NORMALISER_VERSION", "Resolve", "normalise", "sniff", "well_known_paths"]

NORMALISER_VERSION = 2
MAX_ACTIONS = 256
MAX_DIAGNOSTICS = 100
# Order matters: the first module whose matches() accepts the data wins, so the formats that
# announce themselves (a version key, a $schema) come first, shape-sniffed dialects after them,
# and schemaorg (anything JSON-LD) last.
FORMATS = (agent_actions, wildcard, openapi, ai_plugin, a2a, ard, api_catalog, mcp, llms_txt,
           agents_json, schemaorg)

# {"message": "Unauthorized"}, {"errors": [...]}: what an API sends instead of its spec
_ERROR_KEYS = frozenset({"message", "msg", "error", "errors", "code", "status", "detail",
                         "title", "type", "statusCode", "error_description", "request_id"})

log = logging.getLogger(__name__)


def well_known_paths() -> tuple[str, ...]:
    """Every path some format is published at, in FORMATS order, without repeats."""
    return tuple(dict.fromkeys(path for module in FORMATS for path in module.PATHS))


def _module_for(data: Any) -> Any:
    return next((module for module in FORMATS if module.matches(data)), None)


def sniff(doc: RawDocument) -> str | None:
    """The format name of ``doc`` judged from its content, or None."""
    try:
        data, _ = load(doc.body)
    except Unusable:
        return None
    module = _module_for(data)
    return module.NAME if module else None


def _unknown(data: Any) -> Diagnostic:
    if data in ([], {}, "") or (isinstance(data, str) and not data.strip()):
        return Diagnostic(code="empty-document", severity="info", message="document is empty")
    if isinstance(data, str):
        return Diagnostic(code="unknown-format", severity="error",
                          message="text that is neither JSON, YAML nor llms.txt",
                          hint="serve JSON; an llms.txt must start with a '# Title' line")
    if isinstance(data, dict) and data.keys() <= _ERROR_KEYS:
        return Diagnostic(code="unknown-format", severity="error",
                          message="an error response, not a manifest",
                          hint="the server answered with an error: check the URL, "
                               "authentication and IP allow-lists")
    return Diagnostic(code="unknown-format", severity="error",
                      message="no known format matches this document",
                      hint="publish agent-actions/0.1, Schema.org JSON-LD, OpenAPI or another "
                           "format listed in the actiondex docs")


def normalise(doc: RawDocument, site: str | None = None,
              resolve: Resolve | None = None) -> Manifest:
    """The document's actions and flows in the one action model. Never raises.

    ``resolve(url)`` may return the bytes of a document this one references (see
    ``Manifest.references``); without it, references are listed but not read.
    """
    site = site or site_of(doc.url)
    empty = Manifest(site=site, url=doc.url, format="unknown")
    try:
        data, diagnostics = load(doc.body)
    except Unusable as exc:
        return empty.model_copy(update={"diagnostics": [with_hint(exc.diagnostic)]})
    module = _module_for(data)
    if module is None:
        found = [*diagnostics, _unknown(data)]
        return empty.model_copy(update={"diagnostics": [with_hint(d) for d in found]})
    refs = References(doc.url, resolve)
    try:
        manifest = module.to_manifest(data, doc.url, site, refs)
    except Exception:  # a bug in one format module must not stop a crawl of thousands of sites
        log.exception("normaliser %s failed on %s", module.NAME, doc.url)
        diagnostic = Diagnostic(code="internal-error", severity="error",
                                message=f"the {module.NAME} normaliser failed on this document")
        return empty.model_copy(update={"format": module.NAME,
                                        "diagnostics": [with_hint(diagnostic)]})
    manifest.diagnostics[:0] = diagnostics
    manifest.references = refs.urls
    return _enforce(manifest, doc.url, site)


def _enforce(manifest: Manifest, url: str, site: str) -> Manifest:
    """Rules that hold whatever the format: caps, unique names, endpoint flags."""
    diagnostics = manifest.diagnostics
    actions = manifest.actions
    if len(actions) > MAX_ACTIONS:
        diagnostics.append(Diagnostic(code="too-many-actions", message=(
            f"{len(actions)} actions; only the first {MAX_ACTIONS} are kept"),
            hint="split the manifest, or list only the actions agents need"))
        actions = actions[:MAX_ACTIONS]
    actions = _unique(actions, "$.actions", diagnostics)
    flows = _unique(manifest.flows, "$.flows", diagnostics)
    https_site = urlsplit(url).scheme == "https"
    actions = [_flag_endpoint(action, site, https_site, diagnostics) for action in actions]
    if len(diagnostics) > MAX_DIAGNOSTICS:
        dropped = len(diagnostics) - MAX_DIAGNOSTICS
        diagnostics = diagnostics[:MAX_DIAGNOSTICS]
        diagnostics.append(Diagnostic(code="truncated", severity="info",
                                      message=f"{dropped} more diagnostics left out"))
    return manifest.model_copy(update={"actions": actions, "flows": flows,
                                       "diagnostics": [with_hint(d) for d in diagnostics]})


def _unique(items: list[Any], path: str, diagnostics: list[Diagnostic]) -> list[Any]:
    seen: set[str] = set()
    kept = []
    for index, item in enumerate(items):
        if item.name in seen:
            diagnostics.append(Diagnostic(code="duplicate-name", path=f"{path}[{index}]",
                                          message=f"{item.name!r} is already used; dropped"))
            continue
        seen.add(item.name)
        kept.append(item)
    return kept


def _flag_endpoint(action: Action, site: str, https_site: bool,
                   diagnostics: list[Diagnostic]) -> Action:
    if not action.endpoint:
        return action
    # Formats place actions differently, so point at the action by its (unique) name.
    path, host = f"$.actions[?(@.name=='{action.name}')]", site_of(action.endpoint)
    # A private site (a --allow-private deployment) may of course use private endpoints.
    if is_private_host(host) and not is_private_host(site):
        diagnostics.append(Diagnostic(code="private-endpoint", path=path, message=(
            f"{action.name}: endpoint host {host} is a private or reserved address"),
            hint="use a public host name; agents cannot reach private addresses"))
        return action.model_copy(update={"same_origin": False})
    if https_site and action.endpoint.startswith("http://"):
        diagnostics.append(Diagnostic(code="insecure-endpoint", path=path, message=(
            f"{action.name}: plain http endpoint on an https site"),
            hint="serve the endpoint over https"))
    if not same_origin(action.endpoint, site):
        diagnostics.append(Diagnostic(code="cross-origin-endpoint", path=path, message=(
            f"{action.name}: endpoint host {host} is not {site} or a subdomain of it"),
            hint=f"serve the endpoint from {site} or a subdomain, or publish the manifest there"))
        return action.model_copy(update={"same_origin": False})
    return action.model_copy(update={"same_origin": True})

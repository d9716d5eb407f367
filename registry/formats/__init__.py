"""Format facade: sniff a raw document's format from its content and normalise it.

Each format is one module with the same small surface (extruct's "one module per format"):

    NAME: str                      the Manifest.format value, e.g. "agent-actions"
    PATHS: tuple[str, ...]         well-known paths where the crawler should look for it
    matches(data) -> bool          does this parsed JSON look like the format?
    to_manifest(data, url, site) -> Manifest

Modules get JSON that is already parsed, at most MAX_BYTES long and MAX_DEPTH deep. The facade
then enforces what must hold for every format: bounded actions and diagnostics, unique names,
and flags on endpoints that leave the site, use plain http on an https site, or point at a
private address. ``normalise`` never raises; every problem becomes a Diagnostic.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlsplit

from registry.formats import agent_actions, schemaorg
from registry.schemas import Action, Diagnostic, Manifest, RawDocument
from registry.urls import is_private_host, same_origin, site_of

NORMALISER_VERSION = 1
MAX_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_ACTIONS = 256
MAX_DIAGNOSTICS = 100
# Order matters: the first module whose matches() accepts the data wins, so the most specific
# formats come first and schemaorg (anything JSON-LD) comes last.
FORMATS = (agent_actions, schemaorg)

log = logging.getLogger(__name__)


class _Unusable(Exception):
    """The body is not JSON we will look at; carries the diagnostic saying why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.diagnostic = Diagnostic(code=code, severity="error", message=message)


def _depth_exceeds(data: Any, limit: int) -> bool:
    """Iterative depth check, so a deep document cannot exhaust the Python stack."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
    return False


def load_json(body: bytes) -> tuple[Any, list[Diagnostic]]:
    """Parse ``body`` as bounded JSON; raise _Unusable if it cannot be used at all."""
    if len(body) > MAX_BYTES:
        raise _Unusable("too-large", f"document is larger than {MAX_BYTES} bytes")
    diagnostics = []
    try:
        text = body.decode(json.detect_encoding(body))
    except (UnicodeDecodeError, LookupError):
        text = body.decode("utf-8", errors="replace")
        diagnostics.append(Diagnostic(code="encoding-error", message="invalid UTF-8 replaced"))
    try:
        # NaN and Infinity are not JSON and cannot be stored as JSONB: read them as null.
        data = json.loads(text.lstrip("\ufeff"), parse_constant=lambda _: None)
    except RecursionError:
        raise _Unusable("depth-limit", f"JSON nested deeper than {MAX_DEPTH}") from None
    except ValueError as exc:
        raise _Unusable("json-parse-error", f"not JSON: {str(exc)[:200]}") from None
    if _depth_exceeds(data, MAX_DEPTH):
        raise _Unusable("depth-limit", f"JSON nested deeper than {MAX_DEPTH}")
    return data, diagnostics


def _module_for(data: Any) -> Any:
    return next((module for module in FORMATS if module.matches(data)), None)


def sniff(doc: RawDocument) -> str | None:
    """The format name of ``doc`` judged from its content, or None."""
    try:
        data, _ = load_json(doc.body)
    except _Unusable:
        return None
    module = _module_for(data)
    return module.NAME if module else None


def normalise(doc: RawDocument, site: str | None = None) -> Manifest:
    """The document's actions and flows in the one action model. Never raises."""
    site = site or site_of(doc.url)
    empty = Manifest(site=site, url=doc.url, format="unknown")
    try:
        data, diagnostics = load_json(doc.body)
    except _Unusable as exc:
        return empty.model_copy(update={"diagnostics": [exc.diagnostic]})
    module = _module_for(data)
    if module is None:
        empty_doc = data in ([], {})
        code, severity = ("empty-document", "info") if empty_doc else ("unknown-format", "error")
        message = "document is empty" if empty_doc else "no known format matches this document"
        diagnostic = Diagnostic(code=code, severity=severity, message=message)
        return empty.model_copy(update={"diagnostics": [*diagnostics, diagnostic]})
    try:
        manifest = module.to_manifest(data, doc.url, site)
    except Exception:  # a bug in one format module must not stop a crawl of thousands of sites
        log.exception("normaliser %s failed on %s", module.NAME, doc.url)
        diagnostic = Diagnostic(code="internal-error", severity="error",
                                message=f"the {module.NAME} normaliser failed on this document")
        return empty.model_copy(update={"format": module.NAME, "diagnostics": [diagnostic]})
    manifest.diagnostics[:0] = diagnostics
    return _enforce(manifest, doc.url, site)


def _enforce(manifest: Manifest, url: str, site: str) -> Manifest:
    """Rules that hold whatever the format: caps, unique names, endpoint flags."""
    diagnostics = manifest.diagnostics
    actions = manifest.actions
    if len(actions) > MAX_ACTIONS:
        diagnostics.append(Diagnostic(code="too-many-actions", message=(
            f"{len(actions)} actions; only the first {MAX_ACTIONS} are kept")))
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
                                       "diagnostics": diagnostics})


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
            f"{action.name}: endpoint host {host} is a private or reserved address")))
        return action.model_copy(update={"same_origin": False})
    if https_site and action.endpoint.startswith("http://"):
        diagnostics.append(Diagnostic(code="insecure-endpoint", path=path, message=(
            f"{action.name}: plain http endpoint on an https site")))
    if not same_origin(action.endpoint, site):
        diagnostics.append(Diagnostic(code="cross-origin-endpoint", path=path, message=(
            f"{action.name}: endpoint host {host} is not {site} or a subdomain of it")))
        return action.model_copy(update={"same_origin": False})
    return action.model_copy(update={"same_origin": True})

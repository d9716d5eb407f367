"""Format facade: sniff a raw document's format from its content and normalise it.

Each format is one module with the same small surface (extruct's "one module per format"):

    NAME: str                      the Manifest.format value, e.g. "agent-actions"
    PATHS: tuple[str, ...]         well-known paths where the crawler should look for it
    matches(data) -> bool          does this parsed document look like the format?
    to_manifest(data, url, site, refs) -> Manifest

and, where the format has them, these facts (absent means the default):

    CROSS_HOST_REFERENCES = False  True: the documents it references may live on other hosts
    LINK_RELS: tuple[str, ...]     <link rel> / Link header relations that point at it
    LEGACY_PATHS: dict[str, str]   path -> its predecessor, asked only when the path is missing
    FILE_NAME: re.Pattern | None   names its documents go by besides its PATHS' file names
    ACCEPT: dict[str, str]         URL path ending -> the media type to ask for it as
    site_url(data) -> str | None   the site (URL or bare host) a document names for itself
    PROBE: "handshake" | "card" | "catalog"  how liveness probes ask (registry.model.liveness)

Everything outside this package asks the functions below for those facts, so a new format is
one module here, one entry in FORMATS and its fixtures in tests/fixtures/<NAME>/.

Modules get data that is already parsed (JSON, a YAML mapping, or the text itself for text
formats like llms.txt), at most MAX_BYTES long and MAX_DEPTH deep, plus ``refs``: through it
they name the other documents they point at (``Manifest.references``) and read those the
caller could supply (``normalise(..., resolve=...)``). The facade then enforces what must hold
for every format (``_rules``): bounded actions and diagnostics, unique names, and flags on
endpoints that leave the site, use plain http on an https site, or point at a private address.
``normalise`` never raises; every problem becomes a Diagnostic.
"""

from __future__ import annotations

import logging
from pathlib import PurePosixPath
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
from registry.formats._rules import MAX_ACTIONS, enforce
from registry.formats._unknown import unknown
from registry.formats._version import NORMALISER_VERSION
from registry.model.liveness import Kind
from registry.model.schemas import Diagnostic, Manifest, RawDocument
from registry.model.urls import site_key

__all__ = [
    "FORMATS",
    "HINTS",
    "MAX_ACTIONS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_RESOLVED",
    "NORMALISER_VERSION",
    "NAMING_FORMATS",
    "PAGE_FORMAT",
    "VOUCHING_FORMATS",
    "Resolve",
    "legacy_paths",
    "link_relations",
    "named_site",
    "names_a_manifest",
    "normalise",
    "probe_kind",
    "reads_as",
    "published_path",
    "references_cross_hosts",
    "sniff",
    "well_known_names",
    "well_known_paths",
]

# The formats whose documents say which sites a host serves (a catalog's entries, a card's or
# an OpenAPI description's servers, a linkset's anchors): registry.store.reciprocal reads them
# to verify another site's cross-origin endpoints on that host.
VOUCHING_FORMATS = (ard.NAME, a2a.NAME, openapi.NAME, api_catalog.NAME, mcp.NAME)
# Order matters: the first module whose matches() accepts the data wins, so the formats that
# announce themselves (a version key, a $schema) come first, shape-sniffed dialects after them,
# and schemaorg (anything JSON-LD) last.
FORMATS = (
    agent_actions,
    wildcard,
    openapi,
    ai_plugin,
    a2a,
    ard,
    api_catalog,
    mcp,
    llms_txt,
    agents_json,
    schemaorg,
)
PAGE_FORMAT = schemaorg.NAME  # what an HTML page's items are read as
# Formats whose document is valid with a site's name and description and no action: seed 000
# calls a bare WebSite "a valid agents.json" (agents match intents against its name).
NAMING_FORMATS = frozenset({schemaorg.NAME})

log = logging.getLogger(__name__)


def well_known_paths() -> tuple[str, ...]:
    """Every path some format is published at, in FORMATS order, without repeats."""
    return tuple(dict.fromkeys(path for module in FORMATS for path in module.PATHS))


def well_known_names() -> frozenset[str]:
    """The file names of those paths: "agent-actions.json", "api-catalog", "llms.txt"..."""
    return frozenset(PurePosixPath(path).name for path in well_known_paths()) - {""}


def published_path(name: str) -> str:
    """Where a file called ``name`` is served on its site: the first well-known path with that
    name ("ai-plugin.json" -> "/.well-known/ai-plugin.json"), else the site root."""
    return next(
        (path for path in well_known_paths() if PurePosixPath(path).name == name), f"/{name}"
    )


def names_a_manifest(url: str) -> bool:
    """Whether a link's file name is one some format is published under."""
    name = PurePosixPath(urlsplit(url).path).name
    return name in well_known_names() or any(
        pattern.search(name)
        for module in FORMATS
        if (pattern := getattr(module, "FILE_NAME", None)) is not None
    )


def references_cross_hosts(format_name: str) -> bool:
    """Whether the documents a manifest of this format references may live on other hosts
    (an ai-plugin's ``api.url``, a Wildcard agents.json's OpenAPI sources)."""
    return any(
        getattr(module, "CROSS_HOST_REFERENCES", False)
        for module in FORMATS
        if format_name == module.NAME
    )


def probe_kind(format_name: str) -> Kind | None:
    """How the endpoints a document of this format lists are probed for liveness: a
    protocol handshake at the actions' endpoint, a GET of the document itself, or (None) not
    at all: a plain HTTP action is never called to see whether it works."""
    module = next((m for m in FORMATS if format_name == m.NAME), None)
    return getattr(module, "PROBE", None)


def reads_as(format_name: str, body: bytes) -> bool:
    """Whether ``body`` (as served) is a document of this format: a probe's answer."""
    module = next((m for m in FORMATS if format_name == m.NAME), None)
    if module is None:
        return False
    try:
        data, _ = load(body)
    except Unusable:
        return False
    return bool(module.matches(data))


def legacy_paths() -> dict[str, str]:
    """Well-known path -> the predecessor path a crawler asks for only when it is missing
    (ARD's ``ard.json`` -> ``ai-catalog.json``)."""
    return {
        path: old for module in FORMATS for path, old in getattr(module, "LEGACY_PATHS", {}).items()
    }


def accept_for(url: str) -> str | None:
    """The ``Accept`` header to ask ``url`` with, when a format says its path ending is served
    as a media type of its own (an MCP server's ``/server-card``); None: the default."""
    path = urlsplit(url).path
    for module in FORMATS:
        for ending, media_type in getattr(module, "ACCEPT", {}).items():
            if path.endswith(ending):
                return f"{media_type}, application/json;q=0.9"
    return None


def link_relations() -> frozenset[str]:
    """The ``<link rel>`` / ``Link`` header relations that point at some format's document."""
    return frozenset(rel for module in FORMATS for rel in getattr(module, "LINK_RELS", ()))


def named_site(body: bytes) -> str | None:
    """The site a document names for itself (a URL or a bare host), when its format says
    where (the module's ``site_url``); None otherwise. Unchecked: see registry.placement."""
    try:
        data, _ = load(body)
    except Unusable:
        return None
    site_url = getattr(_module_for(data), "site_url", None)
    value = site_url(data) if site_url else None
    return value.strip() if isinstance(value, str) and value.strip() else None


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


def normalise(
    doc: RawDocument, site: str | None = None, resolve: Resolve | None = None
) -> Manifest:
    """The document's actions and flows in the one action model. Never raises.

    ``resolve(url)`` may return the bytes of a document this one references (see
    ``Manifest.references``); without it, references are listed but not read.
    """
    site = site or site_key(doc.url)
    empty = Manifest(site=site, url=doc.url, format="unknown")
    try:
        data, diagnostics = load(doc.body)
    except Unusable as exc:
        return empty.model_copy(update={"diagnostics": [with_hint(exc.diagnostic)]})
    module = _module_for(data)
    if module is None:
        found = [*diagnostics, unknown(data)]
        return empty.model_copy(update={"diagnostics": [with_hint(d) for d in found]})
    refs = References(doc.url, resolve, names_a_manifest)
    try:
        manifest = module.to_manifest(data, doc.url, site, refs)
    except Exception:  # a bug in one format module must not stop a crawl of thousands of sites
        log.exception("normaliser %s failed on %s", module.NAME, doc.url)
        diagnostic = Diagnostic(
            code="internal-error",
            severity="error",
            message=f"the {module.NAME} normaliser failed on this document",
        )
        return empty.model_copy(
            update={"format": module.NAME, "diagnostics": [with_hint(diagnostic)]}
        )
    manifest.diagnostics[:0] = diagnostics
    manifest.references = refs.urls
    return enforce(manifest, doc.url, site)

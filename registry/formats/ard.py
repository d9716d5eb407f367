"""ARD / AI Catalog manifests (``{"specVersion": "1.0", "host", "entries": [...]}``).

Specs: ../shared/specs/ard/ard.md (Agentic Resource Discovery v0.91, sections 4 and 5.1) and
https://github.com/Agent-Card/ai-catalog. Served at ``/.well-known/ard.json``, named by
``<link rel="ard">`` and robots ``Agentmap:``; the predecessor path
``/.well-known/ai-catalog.json`` (and ``rel="ai-catalog"``) is read only when ``ard.json`` is
missing (LEGACY_PATHS). A document with only ``entries`` is enough, when its entries look like
ARD entries (an identifier or a media type, and a ``url`` or ``data``). Entries are JSON-LD
nodes: the registry re-reads them as written (registry.ard.published), namespaced terms and
all; here ``urn:ai:`` identifiers count as ``urn:air:`` and media types are compared in one
spelling (registry.model.ard_terms). Every entry (an A2A card, an MCP server card, a dataset...)
becomes one action pointing at its ``url``; the url is also listed as a reference so the
crawler reads the card itself. Nested catalogs (``application/ai-catalog+json`` entries, or
``data`` holding ``entries``) are read through ``refs``, a few levels deep; an A2A or MCP
card given inline in ``data`` adds its skills or tools. An entry whose
``urn:air:<publisher>:...`` identifier names another domain than the hosting site is refused:
anyone can claim to be acme.com in a file on their own site.
"""

from __future__ import annotations

from typing import Any

from registry.formats import a2a, mcp
from registry.formats._common import Diagnostics, as_dict, as_list, described, diag, title_from
from registry.formats._references import References
from registry.formats._server_cards import CARD_MEDIA_TYPE
from registry.model import ard_terms as terms
from registry.model.effects import infer_effect
from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Manifest
from registry.model.urls import absolute, same_origin

NAME = "ard"
PATHS = ("/.well-known/ard.json", "/.well-known/ai-catalog.json")
PROBE = "catalog"  # liveness (crawler/probes)
LINK_RELS = ("ard", "ai-catalog")
LEGACY_PATHS = {"/.well-known/ard.json": "/.well-known/ai-catalog.json"}  # asked if it is missing
CROSS_HOST_REFERENCES = True  # entries point at cards on the agents' own hosts
MAX_ENTRIES, MAX_NESTING = 256, 3
MAX_WORDS = 32  # representative queries (and capabilities) of an entry the index reads
CATALOG_TYPE = terms.CATALOG_TYPE


def matches(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        return False
    return bool({"specVersion", "host"} & data.keys()) or any(
        _looks_like_entry(e) for e in data["entries"][:8]
    )


def _looks_like_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and ("url" in entry or "data" in entry)
        and (
            terms.identifier(entry.get("identifier")) is not None
            or terms.media_type(entry.get("type", entry.get("mediaType"))) is not None
        )
    )


def site_url(data: dict[str, Any]) -> str | None:
    """The host the catalog names: ``host.identifier`` (a domain, a URL, or ``did:web:``
    whose first segment is the domain, a port written ``%3A``)."""
    identifier = as_dict(data.get("host")).get("identifier")
    if not isinstance(identifier, str):
        return None
    if identifier.lower().startswith("did:web:"):
        return identifier[8:].split(":", 1)[0].replace("%3A", ":").replace("%3a", ":")
    return None if identifier.lower().startswith(("did:", "urn:")) else identifier


def is_catalog(entry: dict[str, Any]) -> bool:
    """A nested catalog: its type says so, or its ``data`` holds ``entries``."""
    media = terms.media_type(entry.get("type", entry.get("mediaType")))
    return media == CATALOG_TYPE or "entries" in as_dict(entry.get("data"))


def entry_name(entry: dict[str, Any]) -> str:
    """The action name an entry is stored under: its identifier's last segment, else its
    displayName, made a machine name; "" when it has neither."""
    identifier = given if isinstance(given := entry.get("identifier"), str) else ""
    label = given if isinstance(given := entry.get("displayName"), str) else ""
    raw = identifier.rsplit(":", 1)[-1] or label
    return safe_name(raw) if raw else ""


def to_manifest(
    data: dict[str, Any], url: str, site: str, refs: References | None = None
) -> Manifest:
    refs = refs or References(url)
    diags: Diagnostics = []
    actions: list[Action] = []
    _entries(data, "$", url, site, refs, actions, diags, 0)
    host = as_dict(data.get("host"))
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        actions=actions,
        diagnostics=diags,
        site_name=clean_text(host.get("displayName"), TITLE_MAX) or None,
    )


def _entries(
    catalog: dict[str, Any],
    path: str,
    url: str,
    site: str,
    refs: References,
    actions: list[Action],
    diags: Diagnostics,
    depth: int,
) -> None:
    for index, entry in enumerate(as_list(catalog.get("entries"))[:MAX_ENTRIES]):
        where = f"{path}.entries[{index}]"
        if not isinstance(entry, dict):
            diag(diags, "action-skipped", where, "an entry must be an object")
            continue
        if not _publisher_ok(entry.get("identifier"), site, where, diags):
            continue
        nested = as_dict(entry.get("data"))
        if is_catalog(entry):
            if depth >= MAX_NESTING:
                diag(diags, "depth-limit", where, "catalogs nested too deep; entry skipped")
                continue
            inner = nested or as_dict(refs.get(entry.get("url"), f"{where}.url", diags))
            inner_path = f"{where}.data" if nested else f"{where}.url"
            _entries(inner, inner_path, url, site, refs, actions, diags, depth + 1)
            continue
        if len(actions) >= MAX_ENTRIES:
            diag(diags, "too-many-actions", where, f"only {MAX_ENTRIES} entries are read")
            return
        if action := _action(entry, url, refs, where, diags):
            actions.append(action)
        actions += _inline_card(nested or _server_card(entry, url, refs, where, diags), url, site)


def _inline_card(data: dict[str, Any], url: str, site: str) -> list[Action]:
    """An A2A card or MCP server card given inline (``data``): its skills or tools too."""
    for module in (a2a, mcp):
        if data and module.matches(data):
            manifest: Manifest = module.to_manifest(data, url, site)
            return manifest.actions[:MAX_ENTRIES]
    return []


def _server_card(
    entry: dict[str, Any], url: str, refs: References, path: str, diags: Diagnostics
) -> dict[str, Any]:
    """An MCP server card an entry points at, once read: an MCP Catalog
    (``/.well-known/mcp/catalog.json``, a subset of the AI Catalog, asked for by the mcp
    format's PATHS and read here by its content) lists its servers so."""
    media = terms.media_type(entry.get("type", entry.get("mediaType")))
    if media != CARD_MEDIA_TYPE or not (card := absolute(entry.get("url"), url)):
        return {}
    return as_dict(refs.get(card, f"{path}.url", diags))


def _publisher_ok(identifier: Any, site: str, path: str, diags: Diagnostics) -> bool:
    urn = terms.identifier(identifier)
    parts = urn.split(":") if urn else []
    if len(parts) < 4:
        diag(
            diags,
            "invalid-identifier",
            f"{path}.identifier",
            "identifier is not urn:air:<publisher>:<name>",
            "warning",
            f"use urn:air:{site}:<namespace>:<name>",
        )
        return True
    publisher = parts[2].lower()
    if same_origin(f"https://{publisher}/", site) or same_origin(f"https://{site}/", publisher):
        return True
    diag(
        diags,
        "spoofed-publisher",
        f"{path}.identifier",
        f"publisher {publisher[:100]} is not the hosting site {site}; entry refused",
        "error",
        f"publish this entry on {publisher[:100]}, or use urn:air:{site}:...",
    )
    return False


def _action(
    entry: dict[str, Any], url: str, refs: References, path: str, diags: Diagnostics
) -> Action | None:
    label = entry.get("displayName") if isinstance(entry.get("displayName"), str) else ""
    name = entry_name(entry)
    if not name:
        diag(diags, "action-skipped", path, "an entry needs an identifier or displayName")
        return None
    endpoint = absolute(entry.get("url"), url)
    if endpoint:
        refs.add(endpoint)
    # How people ask for it and what it can do: the display keeps a few, the index all of them.
    lists = [
        [q for q in as_list(entry.get(key))[:MAX_WORDS] if isinstance(q, str)]
        for key in ("representativeQueries", "capabilities")
    ]
    description, about = described(
        entry.get("description"),
        f"{path}.description",
        diags,
        tuple(q for said in lists for q in said),
    )
    description = clean_text(" ".join([description, *[q for s in lists for q in s[:8]]]))
    return Action(
        name=name,
        title=clean_text(label, TITLE_MAX) or title_from(name),
        description=description,
        about=about if about != description else "",
        endpoint=endpoint,
        effect=infer_effect(None, None, name),
    )

"""ARD's names, spelled one way: identifiers (``urn:air:...``), media types and JSON-LD terms.

Catalogs in the wild write ``urn:ai:`` for ``urn:air:`` (about 11% of entries), and spell one
media type several ways (``Application/A2A-Agent-Card+JSON; charset=utf-8``, ``application/
a2a-agent-card``, the deprecated ``application/mcp-server+json``). Everything we compare,
filter or facet on goes through ``identifier`` and ``media_type`` first.
"""

from __future__ import annotations

import re
from typing import Any

# The identifier syntax of ard.openapi.yaml (Appendix C): urn:air:<publisher>:<ns>:<name>.
URN = re.compile(r"^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$")
MAX_IDENTIFIER = 512
ARD_NS = "https://agenticresourcediscovery.org/ns#"  # the base context's default namespace
ACTIONDEX_NS = "https://actiondex.org/ns#"  # our own terms on the entries we write
PREFIXES = {"actiondex": ACTIONDEX_NS}  # bound in every query, so clients need no @context
ACTION_TYPE = "application/vnd.actiondex.action+json"  # the type of an entry we write
FLOW_TYPE = "application/vnd.actiondex.flow+json"  # ... for a flow (its steps are actions)
REGISTRY_TYPE = "application/ai-registry+json"
CATALOG_TYPE = "application/ai-catalog+json"

# Old or informal names -> the name ARD v0.91 uses.
LEGACY_TYPES = {
    "application/mcp-server+json": "application/mcp-server-card+json",
    "application/mcp-server-card": "application/mcp-server-card+json",
    "application/mcp+json": "application/mcp-server-card+json",
    "application/a2a-agent-card": "application/a2a-agent-card+json",
    "application/a2a+json": "application/a2a-agent-card+json",
    "application/agent-card": "application/agent-card+json",
    "application/ai-catalog": CATALOG_TYPE,
    "application/ard+json": CATALOG_TYPE,
    "application/ai-registry": REGISTRY_TYPE,
}
_MEDIA = re.compile(r"^\s*([A-Za-z0-9!#$&^_.+-]+)\s*/\s*([A-Za-z0-9!#$&^_.+-]+)\s*(;.*)?$")
# Parameters that tell one artifact from another; others (charset, version) are dropped.
_KEPT_PARAMETERS = ("profile",)


def identifier(value: Any) -> str | None:
    """The identifier as ``urn:air:...`` (``urn:ai:`` and case of the scheme fixed), or None
    when it is not a valid ARD identifier."""
    if not isinstance(value, str) or len(value) > MAX_IDENTIFIER:
        return None
    text = value.strip()
    scheme, _, rest = text.partition(":")
    nid, _, nss = rest.partition(":")
    if scheme.lower() == "urn" and nid.lower() in ("air", "ai"):
        text = f"urn:air:{nss}"
    return text if URN.match(text) else None


def publisher(urn: str) -> str:
    """The ``<publisher>`` segment of a valid identifier, lower case."""
    return urn.split(":")[2].lower()


def media_type(value: Any) -> str | None:
    """One spelling of a media type: lower case, no parameters but ``profile``, legacy names
    mapped (see LEGACY_TYPES), or None when it is no media type at all."""
    if not isinstance(value, str):
        return None
    match = _MEDIA.match(value)
    if match is None:
        return None
    base = f"{match.group(1)}/{match.group(2)}".lower()
    base = LEGACY_TYPES.get(base, base)
    kept = []
    for part in (match.group(3) or "").split(";"):
        name, _, raw = part.partition("=")
        if name.strip().lower() in _KEPT_PARAMETERS and raw.strip():
            kept.append(f'{name.strip().lower()}="{raw.strip().strip(chr(34))}"')
    return "; ".join([base, *kept])


def context_prefixes(context: Any) -> dict[str, str]:
    """Prefix (or term) -> IRI from a JSON-LD ``@context``: an object, or an array of them and
    of context URLs (a URL binds nothing we can read without fetching it)."""
    found: dict[str, str] = {}
    for part in context if isinstance(context, list) else [context]:
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            iri = value.get("@id") if isinstance(value, dict) else value
            if isinstance(key, str) and isinstance(iri, str) and not key.startswith("@"):
                found[key] = iri
    return found


def term_iri(key: str, prefixes: dict[str, str]) -> str:
    """A term's IRI: ``p:term`` through a bound prefix, a bound term, an absolute IRI as it
    is, anything else in ARD's default namespace."""
    if key in prefixes:
        return prefixes[key]
    prefix, sep, local = key.partition(":")
    if sep and prefix in prefixes:
        return prefixes[prefix] + local
    if sep and local.startswith("//"):
        return key
    return ARD_NS + key

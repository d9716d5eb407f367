"""MCP server cards at a server's own URL (a helper of the mcp and ard formats, not a format).

MCP's HTTP discovery (SEP-2127, server cards) reserves ``<streamable-http-url>/server-card``
for the card of the server at that URL, served as ``application/mcp-server-card+json``; an
MCP Catalog (``/.well-known/mcp/catalog.json``, a subset of the AI Catalog that
registry.formats.ard reads) lists cards by that media type. The crawler asks for a card with
that type in ``Accept`` (registry.formats.accept_for).
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import as_dict, as_list

CARD_PATH = "/server-card"
CARD_MEDIA_TYPE = "application/mcp-server-card+json"
# How server.json and cards name the streamable HTTP transport (2025-03-26 on; older: "http").
STREAMABLE = frozenset({"streamable-http", "streamable_http", "streamablehttp", "http"})
MAX_CARDS = 4  # cards read for one server: each is a request to the server's host


def streamable_urls(data: dict[str, Any]) -> list[str]:
    """The streamable HTTP URLs a server.json or card gives for its server."""
    found = [
        as_dict(r).get("url")
        for r in [*as_list(data.get("remotes"))[:8], data.get("transport")]
        if str(as_dict(r).get("type", "")).lower() in STREAMABLE
    ]
    urls = [u for u in found if isinstance(u, str) and u.startswith(("https://", "http://"))]
    return list(dict.fromkeys(urls))[:MAX_CARDS]


def card_url(endpoint: str) -> str:
    """Where the server at ``endpoint`` serves its card."""
    return endpoint.split("#", 1)[0].split("?", 1)[0].rstrip("/") + CARD_PATH

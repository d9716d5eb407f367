"""MCP server cards at ``<streamable-http-url>/server-card`` (registry.formats._server_cards):
a server.json names its card as a reference and, once the card is read, adds the tools the
card lists; an MCP Catalog's card entries are read through ard; cards are asked for by their
media type."""

from __future__ import annotations

import json
from typing import Any

from registry.formats import accept_for, normalise, well_known_paths
from registry.model.schemas import RawDocument

SERVER = {
    "name": "shop.example/search",
    "description": "Searches the shop.",
    "remotes": [
        {"type": "streamable-http", "url": "https://mcp.shop.example/mcp/"},
        {"type": "sse", "url": "https://mcp.shop.example/sse"},
    ],
    "tools": [{"name": "search", "inputSchema": {"type": "object"}}],
}
CARD = {
    "name": "shop.example/search",
    "remotes": [{"type": "streamable-http", "url": "https://mcp.shop.example/mcp/"}],
    "tools": [
        {"name": "search", "description": "Listed twice: kept once"},
        {"name": "track_order", "annotations": {"readOnlyHint": True}},
    ],
}
CARD_URL = "https://mcp.shop.example/mcp/server-card"


def resolver(documents: dict[str, Any]) -> Any:
    return lambda url: json.dumps(documents[url]).encode() if url in documents else None


def test_a_servers_card_is_referenced_and_its_tools_read() -> None:
    doc = RawDocument(url="https://shop.example/server.json", body=json.dumps(SERVER).encode())
    alone = normalise(doc)
    assert CARD_URL in alone.references  # the streamable remote's only, not the SSE one's
    assert not any("/sse/" in url for url in alone.references)
    read = normalise(doc, resolve=resolver({CARD_URL: CARD}))
    tools = {a.name: a for a in read.actions}
    assert set(tools) == {"search", "track_order"}
    assert tools["track_order"].effect == "read"
    assert tools["track_order"].endpoint == "https://mcp.shop.example/mcp/"


def test_an_mcp_catalog_entry_s_card_adds_its_tools() -> None:
    catalog = {
        "specVersion": "1.0",
        "host": {"displayName": "Shop"},
        "entries": [
            {
                "identifier": "urn:air:shop.example:mcp:search",
                "displayName": "Search",
                "type": "application/mcp-server-card+json",
                "url": CARD_URL,
            }
        ],
    }
    doc = RawDocument(
        url="https://shop.example/.well-known/mcp/catalog.json", body=json.dumps(catalog).encode()
    )
    manifest = normalise(doc, resolve=resolver({CARD_URL: CARD}))
    assert manifest.format == "ard"
    assert {"search", "track_order"} <= {a.name for a in manifest.actions}
    assert "/.well-known/mcp/catalog.json" in well_known_paths()


def test_cards_are_asked_for_by_their_media_type() -> None:
    assert accept_for(CARD_URL) == "application/mcp-server-card+json, application/json;q=0.9"
    assert accept_for("https://shop.example/.well-known/mcp/server-card.json") is None
    assert accept_for("https://shop.example/server.json") is None

"""MCP's newer discovery paths on loopback, beside the older ones: the MCP Catalog at
``/.well-known/mcp/catalog.json`` (a subset of the AI Catalog, ``urn:air`` ids) and a server's
card at ``<streamable-http-url>/server-card``, asked for with ``Accept:
application/mcp-server-card+json``; the tools a card lists become actions of the site."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.web import LoopbackWeb, Reply, Site, json_reply
from tests.hostile.run import action_names, crawl

pytestmark = pytest.mark.timeout(300)
CATALOG, CARD = "/.well-known/mcp/catalog.json", "/mcp/server-card"
CARD_TYPE = "application/mcp-server-card+json"


def card(name: str, tool: str, url: str) -> str:
    return json.dumps(
        {
            "name": f"test.example/{name}",
            "title": name.title(),
            "description": f"The {name} server.",
            "version": "1.0.0",
            "remotes": [{"type": "streamable-http", "url": url}],
            "tools": [
                {
                    "name": tool,
                    "description": f"{tool.replace('_', ' ').capitalize()}.",
                    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                    "annotations": {"readOnlyHint": tool.startswith("search")},
                }
            ],
        }
    )


def card_reply(body: str) -> Reply:
    return Reply(body=body.encode(), headers={"Content-Type": CARD_TYPE})


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("mcp-discovery")
    web = LoopbackWeb({"catalogued.test": Site(), "listed.test": Site()})
    notes_url, search_url = web.url("catalogued.test", "/mcp"), web.url("listed.test", "/mcp")
    web.sites["catalogued.test"].paths.update(
        {
            CATALOG: json_reply(
                json.dumps(
                    {
                        "specVersion": "1.0",
                        "host": {"displayName": "Catalogued"},
                        "entries": [
                            {
                                "identifier": "urn:air:catalogued.test:mcp:notes",
                                "displayName": "Notes",
                                "type": CARD_TYPE,
                                "url": CARD,
                            }
                        ],
                    }
                )
            ),
            CARD: card_reply(card("notes", "add_note", notes_url)),
        }
    )
    web.sites["listed.test"].paths.update(
        {
            "/server.json": json_reply(
                json.dumps(
                    {
                        "$schema": "https://static.modelcontextprotocol.io/schemas/"
                        "2025-12-11/server.schema.json",
                        "name": "test.example/search",
                        "description": "Searches the docs.",
                        "version": "1.0.0",
                        "remotes": [{"type": "streamable-http", "url": search_url}],
                    }
                )
            ),
            CARD: card_reply(card("search", "search_docs", search_url)),
        }
    )
    with web:
        summary = crawl(data, web, *[web.url(h) for h in web.sites])
        log = list(web.log)
    return {"summary": summary, "log": log, "names": action_names(data)}


def _names(crawled: dict[str, Any], host: str) -> set[str]:
    return next(found for h, found in crawled["names"].items() if h.split(":")[0] == host)


def test_the_mcp_catalog_is_read_and_its_cards_tools_found(crawled: dict[str, Any]) -> None:
    asked = {(h.split(":")[0], p) for h, p, _ in crawled["log"]}
    assert ("catalogued.test", CATALOG) in asked and ("listed.test", CATALOG) in asked
    assert {"notes", "add_note"} <= _names(crawled, "catalogued.test")


def test_a_server_s_card_is_asked_for_at_its_streamable_url(crawled: dict[str, Any]) -> None:
    assert {"search", "search_docs"} <= _names(crawled, "listed.test")


def test_cards_are_asked_for_by_their_media_type(crawled: dict[str, Any]) -> None:
    accepts = {(h.split(":")[0], p): headers.get("Accept", "") for h, p, headers in crawled["log"]}
    for host in ("catalogued.test", "listed.test"):
        assert accepts[(host, CARD)].startswith(CARD_TYPE), accepts[(host, CARD)]
    assert not accepts[("listed.test", "/server.json")].startswith(CARD_TYPE)

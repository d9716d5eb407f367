"""An MCP server listed by a server card that names its tools AND answering tools/list to a
probe (issue 22 item 2): one action per tool, the live list's, whichever document the store
promoted first; the card's other tools and the server itself stay."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from crawler.probes.ask import tools_body
from registry.db.tables import ActionRow, Document
from registry.model.liveness import ProbeOutcome, ProbeTarget
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.promotion import promote_site
from registry.store.rows import utcnow

HOST = "tools.example"
ENDPOINT = f"https://{HOST}/mcp"
CARD_URL = f"https://{HOST}/.well-known/mcp/server-card.json"


def _tool(name: str, description: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    return {"name": name, "description": description, "inputSchema": schema}


def _card(forecast: str = "Forecast, as the card says") -> bytes:
    card = {
        "name": "io.test/weather",
        "description": "Weather for cities",
        "remotes": [{"type": "streamable-http", "url": ENDPOINT}],
        "tools": [_tool("forecast", forecast), _tool("radar_map", "Shows the radar map")],
    }
    return json.dumps(card).encode()


def _live() -> bytes:
    target = ProbeTarget(HOST, ENDPOINT, ENDPOINT, "mcp", "handshake")
    outcome = ProbeOutcome(target, "live", utcnow())
    outcome.tools = {"endpoint": ENDPOINT, "protocolVersion": "2026-07-28"}
    outcome.tools["tools"] = [
        _tool("forecast", "Forecast, as the server says"),
        _tool("alerts", "Weather alerts"),
    ]
    return tools_body(outcome)


def _promote(session: Session, url: str, body: bytes, reason: str = "crawl") -> None:
    raw = RawDocument(url=url, body=body, content_type="application/json", fetched_at=utcnow())
    update = normalise_site(SiteCrawl(host=HOST, origin=f"https://{HOST}", documents=[raw]))
    promote_site(session, update, reason=reason)


def _actions(session: Session) -> dict[str, list[tuple[str, str]]]:
    rows = session.execute(
        select(ActionRow.name, ActionRow.description, Document.url).join(Document)
    )
    found: dict[str, list[tuple[str, str]]] = {}
    for name, description, url in rows:
        found.setdefault(name, []).append((description, url))
    return found


@pytest.mark.parametrize("card_first", [True, False])
def test_a_tool_on_a_card_and_in_the_live_list_is_one_action(
    session: Session, card_first: bool
) -> None:
    steps = [(CARD_URL, _card(), "crawl"), (ENDPOINT, _live(), "probe")]
    for url, body, reason in steps if card_first else steps[::-1]:
        _promote(session, url, body, reason)
    found = _actions(session)
    assert sorted(found) == ["alerts", "forecast", "radar_map", "weather"]
    assert found["forecast"] == [("Forecast, as the server says", ENDPOINT)]
    assert found["radar_map"] == [("Shows the radar map", CARD_URL)]
    # The card changes: re-promoted, it still does not bring its copy back.
    _promote(session, CARD_URL, _card("Forecast, as the card now says"))
    assert _actions(session)["forecast"] == [("Forecast, as the server says", ENDPOINT)]

"""The seeds' examples, as printed (read in place from ../shared/seeds), and golden fixtures of
our own in their shapes, through every door an agent uses: POST /validate, ingest into a
migrated store on both backends, GET /find, GET /actions/{id}, GET /flows/{id}, POST
/actions/{id}/prepare and the MCP tools (the SDK's own client, in memory).

Each example is ingested at an origin consistent with what it names (seed 002's bare host
``shop.example`` at https://shop.example). Whether an endpoint on another host is shown by
default, and how it is marked, is the origin work's: here /find asks ``origin=any`` and the
tests check that nothing an agent needs is lost."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from sqlalchemy import Engine

from actiondex.ingest import ingest_paths
from api.app import create_app
from api.mcp.server import build_server
from harness.db import BACKENDS, engine_for, fresh_pg_database
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.index import ActionIndex
from tests.helpers.paths import FIXTURES
from tests.helpers.seeds import SEEDS, seed_examples, wildcard_document

pytestmark = pytest.mark.timeout(300)


@dataclass
class Doors:
    client: TestClient
    engine: Engine
    index: ActionIndex
    ingested: list[dict[str, Any]]  # each site's ingest summary


@dataclass
class Backing:
    index: ActionIndex
    engine: Engine
    search_threads: anyio.CapacityLimiter


def _sites(folder: Path) -> list[tuple[Path, str]]:
    """Each site's folder (its manifest under the name it is published by) and its origin."""
    if not SEEDS.is_dir():
        pytest.skip(f"the seeds are read in place from {SEEDS}, which is absent")
    files = {
        "shop": ("agent-actions.json", seed_examples("002")[0], "https://shop.example"),
        "hn": ("agents.json", seed_examples("000")[2], "https://news.ycombinator.com"),
        "alpaca": ("agents.json", wildcard_document(), "https://alpaca.example"),
    }
    sites = []
    for name, (file_name, example, origin) in files.items():
        (folder / name).mkdir(parents=True)
        (folder / name / file_name).write_text(json.dumps(example))
        sites.append((folder / name, origin))
    own = (
        ("agent-actions", "seed-bakery", "agent-actions.json"),
        ("schemaorg", "seed-webapi", "agents.json"),
    )
    for fmt, case, file_name in own:
        (folder / case).mkdir(parents=True)
        (folder / case / file_name).write_bytes((FIXTURES / fmt / f"{case}.json").read_bytes())
        sites.append((folder / case, f"https://{case}.example"))
    return sites


@pytest.fixture(scope="module", params=BACKENDS)
def doors(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Doors]:
    data = tmp_path_factory.mktemp("seed-store")
    if request.param == "sqlite":
        yield from _doors(f"sqlite:///{data / 'store.db'}", data)
    else:
        with fresh_pg_database(f"actiondex_seed{os.getpid()}") as url:
            yield from _doors(url, data)


def _doors(url: str, data: Path) -> Iterator[Doors]:
    engine = engine_for(url, data)
    migrate(engine)
    ingested = [ingest_paths(engine, [folder], origin) for folder, origin in _sites(data / "files")]
    index = ActionIndex.open(data / "index")
    with transaction(engine) as session:
        index.sync(session)
    app = create_app(Settings(data_dir=data, rate_limit=0), index=index, engine=engine)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Doors(client, engine, index, ingested)
    engine.dispose()


def find(doors: Doors, query: str, site: str, **params: Any) -> list[dict[str, Any]]:
    response = doors.client.get(
        "/find", params={"q": query, "site": site, "origin": "any", "limit": 20, **params}
    )
    assert response.status_code == 200, response.text
    return list(response.json()["results"])


def by_name(doors: Doors, query: str, site: str, name: str, kind: str = "action") -> dict[str, Any]:
    found = [r for r in find(doors, query, site) if r["name"] == name and r["kind"] == kind]
    assert found, f"{kind} {name} of {site} not found for {query!r}"
    return found[0]


def prepare(doors: Doors, action_id: str, value: dict[str, Any]) -> Any:
    return doors.client.post(f"/actions/{action_id}/prepare", json={"input": value})


def mcp(doors: Doors, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One MCP tool call with the SDK's client, in memory, over the same store and index."""
    answer: dict[str, Any] = {}

    async def body() -> None:
        backing = Backing(doors.index, doors.engine, anyio.CapacityLimiter(1))
        async with Client(build_server(lambda: backing)) as client:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            answer.update(result.structured_content or {})

    anyio.run(body)
    return answer


def test_every_example_is_ingested(doors: Doors) -> None:
    for summary in doors.ingested:
        assert summary["skipped"] == [] and summary["errors"] == 0, summary


# --- seed 002 ----------------------------------------------------------------------------


def test_002_validate_as_printed(doors: Doors) -> None:
    body = json.dumps(seed_examples("002")[0])
    response = doors.client.post(
        "/validate", params={"origin": "https://shop.example"}, content=body
    )
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["format"] == "agent-actions"
    assert not [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert [f["name"] for f in report["flows"]] == ["buy_product"]


def test_002_flow_through_find_flows_and_mcp(doors: Doors) -> None:
    found = by_name(doors, "buy product", "shop.example", "buy_product", kind="flow")
    assert (found["effect"], found["needs_approval"], found["auth"]) == ("spend", True, "grant")
    assert found["scope"] == "cart:write"
    assert found["input_schema"]["required"] == ["query", "quantity"]
    assert [s["bindings"] for s in found["steps"]] == [
        {"query": "$input.query"},
        {"product_id": "$steps.0.items.0.id", "quantity": "$input.quantity"},
        {"cart_id": "$steps.1.cart_id"},
    ]
    detail = doors.client.get(f"/flows/{found['id']}").json()
    assert detail["auth"] == "grant" and detail["scope"] == "cart:write"
    assert detail["input_schema"]["properties"]["quantity"]["maximum"] == 20
    steps = detail["steps"]
    assert [s["action"] for s in steps] == ["search_products", "add_to_cart", "checkout"]
    assert steps[1]["bindings"]["quantity"] == "$input.quantity"
    assert steps[1]["resolved"]["auth"] == "grant"
    assert steps[0]["resolved"] is None  # the seed prints no search_products
    via_mcp = mcp(doors, "get_action", {"id": found["id"]})
    assert (via_mcp["auth"], via_mcp["scope"]) == ("grant", "cart:write")
    assert [s["bindings"] for s in via_mcp["steps"]] == [s["bindings"] for s in steps]


def test_002_action_through_actions_prepare_and_mcp(doors: Doors) -> None:
    cart = by_name(doors, "add to cart", "shop.example", "add_to_cart")
    assert (cart["auth"], cart["scope"], cart["effect"]) == ("grant", "cart:write", "write")
    detail = doors.client.get(f"/actions/{cart['id']}").json()
    assert detail["auth"] == "grant" and detail["input_schema"]["required"] == [
        "product_id",
        "quantity",
    ]
    planned = prepare(doors, cart["id"], {"product_id": "p-1", "quantity": 2})
    assert planned.status_code == 200, planned.text
    call = planned.json()
    assert (call["method"], call["auth"], call["scope"]) == ("POST", "grant", "cart:write")
    assert json.loads(call["body"]) == {"product_id": "p-1", "quantity": 2}
    too_many = prepare(doors, cart["id"], {"product_id": "p-1", "quantity": 21})
    assert too_many.status_code == 409 and too_many.json()["error"]["field"] == "$.quantity"
    via_mcp = mcp(
        doors,
        "prepare_call",
        {"action_id": cart["id"], "input": {"product_id": "p", "quantity": 1}},
    )
    assert (via_mcp["auth"], via_mcp["scope"]) == ("grant", "cart:write")


# --- our own agent-actions in the seed's shape: a flow that costs and needs oauth2 --------


def test_bakery_flow_says_what_it_needs_and_costs(doors: Doors) -> None:
    buy = by_name(doors, "buy a loaf", "seed-bakery.example", "buy_loaf", kind="flow")
    assert buy["auth"] == "oauth2"  # its spend step's, not "unknown"
    assert buy["cost"] == {"amount": 3.95, "currency": "EUR"}  # not "no cost"
    assert buy["scope"] == "basket:write orders:pay"
    assert buy["input_schema"]["properties"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 12,
    }
    detail = doors.client.get(f"/flows/{buy['id']}").json()
    assert (detail["auth"], detail["cost"], detail["scope"]) == (
        "oauth2",
        {"amount": 3.95, "currency": "EUR"},
        "basket:write orders:pay",
    )
    assert all(step["resolved"] for step in detail["steps"])
    tip = by_name(doors, "thank baker", "seed-bakery.example", "thank_baker", kind="flow")
    assert tip["cost"] == {"field": "tip", "currency": "EUR"}
    assert mcp(doors, "get_action", {"id": buy["id"]})["cost"] == {
        "amount": 3.95,
        "currency": "EUR",
    }
    pay = by_name(doors, "pay basket", "seed-bakery.example", "pay_basket")
    call = prepare(doors, pay["id"], {"basket_id": "b-7"}).json()
    assert (call["needs_approval"], call["auth"], call["cost"]) == (
        True,
        "oauth2",
        {"amount": 3.95, "currency": "EUR"},
    )


# --- seed 001 ----------------------------------------------------------------------------


def test_001_fragments_through_validate_find_and_flows(doors: Doors) -> None:
    body = json.dumps(wildcard_document())
    report = doors.client.post(
        "/validate", params={"origin": "https://alpaca.example"}, content=body
    ).json()
    assert report["format"] == "wildcard-agents-json"
    assert [f["name"] for f in report["flows"]] == ["order_roundtrip"]
    trip = by_name(doors, "place order status", "alpaca.example", "order_roundtrip", kind="flow")
    assert trip["title"] == "Place Order and Get Order Status"
    assert trip["input_schema"]["properties"]["side"]["enum"] == ["buy", "sell"]
    detail = doors.client.get(f"/flows/{trip['id']}").json()
    assert detail["steps"][1]["bindings"] == {"order_id": "$steps.0.id"}
    assert len(detail["steps"][0]["bindings"]) == 8
    assert mcp(doors, "get_action", {"id": trip["id"]})["steps"][1]["action"] == (
        "alpacatrading_get_order_by_order_i_d"
    )


# --- seed 000 and our own WebAPI ---------------------------------------------------------


def test_000_full_example_keeps_its_four_actions(doors: Doors) -> None:
    site = doors.client.get("/sites/news.ycombinator.com").json()
    assert sorted(a["name"] for a in site["actions"]) == [
        "new-stories",
        "search",
        "submit-story",
        "top-stories",
    ]
    top = by_name(doors, "top stories", "news.ycombinator.com", "top-stories")
    fields = top["output_schema"]["items"]["properties"]
    assert list(fields) == ["id", "title", "url", "score", "by", "time"]
    search = by_name(doors, "search stories", "news.ycombinator.com", "search")
    planned = prepare(doors, search["id"], {"search_term_string": "rust"}).json()
    assert planned["url"] == "https://hn.algolia.com/api/v1/search?query=rust&tags=story"
    submit = by_name(doors, "submit story", "news.ycombinator.com", "submit-story")
    call = prepare(doors, submit["id"], {"title": "Show HN", "url": "https://x.example/"}).json()
    assert call["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
    assert call["body"] == "title=Show+HN&url=https%3A%2F%2Fx.example%2F"
    missing = prepare(doors, submit["id"], {"url": "https://x.example/"})
    assert missing.status_code == 409 and missing.json()["error"]["field"] == "$.title"
    assert mcp(doors, "get_action", {"id": top["id"]})["output_schema"]["type"] == "array"


def test_own_webapi_property_values_reach_prepare(doors: Doors) -> None:
    start = by_name(doors, "start thread", "seed-webapi.example", "start-thread")
    props = start["input_schema"]["properties"]
    assert props["board"]["default"] == "general"
    assert (props["lanterns"]["minimum"], props["lanterns"]["maximum"]) == (0, 500)
    too_many = prepare(doors, start["id"], {"title": "Brass or tin?", "lanterns": 501})
    assert too_many.status_code == 409 and too_many.json()["error"]["field"] == "$.lanterns"
    short = prepare(doors, start["id"], {"title": "no"})
    assert short.status_code == 409 and short.json()["error"]["field"] == "$.title"
    hot = by_name(doors, "hot threads", "seed-webapi.example", "hot-threads")
    assert hot["output_schema"]["items"]["properties"]["id"]["pattern"] == "[0-9]+"


def test_bakery_endpoints_are_on_its_site(doors: Doors) -> None:
    """agent-actions' top-level endpoints (seed 002: receipts, refunds, revocations,
    negotiation) reach the site's documents; one that is no URL is left out."""
    expected = {
        "receipts": "https://seed-bakery.example/agent/receipts",
        "refunds": "https://seed-bakery.example/agent/refunds",
        "negotiation": "https://seed-bakery.example/agent/negotiate",
    }
    site = doors.client.get("/sites/seed-bakery.example").json()
    assert [d["endpoints"] for d in site["documents"]] == [expected]
    via_mcp = mcp(doors, "get_site", {"host": "seed-bakery.example"})
    assert [d["endpoints"] for d in via_mcp["documents"]] == [expected]
    other = doors.client.get("/sites/shop.example").json()
    assert [d["endpoints"] for d in other["documents"]] == [{}]

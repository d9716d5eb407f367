"""Tool definitions through every door, on SQLite and PostgreSQL (tests/api/conftest.py's
store): GET /find?as=, GET /actions/{id}?as=, GET /flows/{id}?as= and MCP find_action's
``as`` argument (the SDK's own client, in-process), each tool checked against the SDK that
defines its shape (tests.helpers.tool_shapes)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from api.mcp.server import build_server
from tests.api.conftest import Live
from tests.helpers.api import error
from tests.helpers.tool_shapes import check

SHAPES = ("openai", "anthropic", "mcp")


def find(live: Live, **params: Any) -> dict[str, Any]:
    response = live.client.get("/find", params=params)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("shape", SHAPES)
def test_find_answers_tools_in_each_shape(live_store: Live, shape: str) -> None:
    plain = find(live_store, q="buy products cart", limit=20)["results"]
    answer = find(live_store, q="buy products cart", limit=20, **{"as": shape})
    assert set(answer) == {"query", "results", "tools", "ids", "took_ms"}
    assert answer["results"] == [] and len(answer["tools"]) == len(plain) > 3
    assert list(answer["ids"].values()) == [hit["id"] for hit in plain]  # the same order
    assert list(answer["ids"]) == [tool["name"] for tool in answer["tools"]]  # names unique
    assert {hit["kind"] for hit in plain} == {"action", "flow"}  # flows are tools too
    for tool in answer["tools"]:
        check(shape, tool)
    flow = next(h for h in plain if h["kind"] == "flow")
    flow_tool = answer["tools"][[h["id"] for h in plain].index(flow["id"])]
    assert "A flow of steps (" in flow_tool["description"]


def test_find_by_site_and_shortened_with_as(live_store: Live) -> None:
    by_site = find(live_store, q="products", group="site", **{"as": "anthropic"})
    assert by_site["results"] == [] and "sites" not in by_site
    sites = find(live_store, q="products", group="site")["sites"]
    assert list(by_site["ids"].values()) == [a["id"] for s in sites for a in s["actions"]]
    long = find(
        live_store, q=" ".join(["products"] + [f"w{i}" for i in range(40)]), **{"as": "mcp"}
    )
    assert long["shortened"]["dropped"] > 0


@pytest.mark.parametrize("shape", SHAPES)
def test_an_action_and_a_flow_as_one_tool(live_store: Live, shape: str) -> None:
    hits = find(live_store, q="pay for the cart", site="full-shop.example", limit=20)["results"]
    action = next(h for h in hits if h["kind"] == "action" and h["effect"] == "spend")
    response = live_store.client.get(f"/actions/{action['id']}", params={"as": shape})
    assert response.status_code == 200 and response.headers["etag"]
    tool = response.json()
    check(shape, tool)
    assert "full-shop.example" in tool["description"] and "approval" in tool["description"]
    listed = find(live_store, q="pay for the cart", site="full-shop.example", **{"as": shape})
    assert tool in listed["tools"]  # the same definition /find gives
    flow = next(h for h in hits if h["kind"] == "flow")
    flow_tool = live_store.client.get(f"/flows/{flow['id']}", params={"as": shape}).json()
    check(shape, flow_tool)
    if shape == "mcp":
        assert tool["annotations"]["destructiveHint"] is True  # spend
        assert tool["annotations"]["readOnlyHint"] is False


def test_a_bad_shape_is_a_422_in_the_error_shape(live_store: Live) -> None:
    for path in ("/find?q=cart&as=gemini", "/actions/4b873d693a63d35e0a88ea6c?as=OPENAI"):
        response = live_store.client.get(path)
        assert response.status_code == 422
        assert error(response)["field"] == "as"


def test_find_action_takes_as(live_store: Live) -> None:
    """MCP's find_action: the same tools /find?as= gives; a bad shape a tool error."""
    rest = find(live_store, q="buy products cart", **{"as": "openai"})

    async def body() -> None:
        async with Client(build_server(lambda: live_store.client.app.state)) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            schema = listed["find_action"].input_schema["properties"]["as"]
            assert schema["enum"] == ["openai", "anthropic", "mcp", None]
            result = await client.call_tool(
                "find_action", {"query": "buy products cart", "as": "openai"}
            )
            assert not result.is_error, result.content
            answer = result.structured_content
            assert answer is not None
            assert answer["results"] == [] and answer["tools"] == rest["tools"]
            assert answer["ids"] == rest["ids"]
            for shape in SHAPES:
                result = await client.call_tool("find_action", {"query": "cart", "as": shape})
                assert result.structured_content is not None
                for tool in result.structured_content["tools"]:
                    check(shape, tool)
            bad = await client.call_tool("find_action", {"query": "cart", "as": "gemini"})
            assert bad.is_error
            assert "as: must be one of openai, anthropic, mcp" in bad.content[0].text  # type: ignore[union-attr]
            plain = await client.call_tool("find_action", {"query": "cart"})
            assert plain.structured_content is not None
            assert "tools" not in plain.structured_content and plain.structured_content["results"]

    anyio.run(body)

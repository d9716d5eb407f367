"""The checks both MCP transports must pass, made with the SDK's own client over the two
shops of tests.helpers.live.ingest_shops."""

from __future__ import annotations

from typing import Any

from mcp import Client

from registry.search.contract import MAX_QUERY_CHARS
from tests.helpers.api import LONG_REQUEST

TOOLS = {"find_action", "get_action", "get_site", "prepare_call"}
EFFECTS = ("read", "write", "send", "spend", "delete")


async def check_tool_list(client: Client) -> None:
    """Every tool: read-only annotations, an input and an output schema, and a description
    that says what each effect means."""
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.annotations is not None
        assert (
            tool.annotations.read_only_hint,
            tool.annotations.destructive_hint,
            tool.annotations.idempotent_hint,
            tool.annotations.open_world_hint,
        ) == (True, False, True, False), tool.name
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        for effect in EFFECTS:
            assert f"`{effect}`" in (tool.description or ""), (tool.name, effect)
        assert "needs_approval" in (tool.description or "")
    find = tools["find_action"].input_schema
    assert find["required"] == ["query"]
    # GET /find's bounds, from the same FindQuery
    assert (find["properties"]["query"]["minLength"], find["properties"]["query"]["maxLength"]) == (
        1,
        MAX_QUERY_CHARS,
    )
    assert (
        find["properties"]["limit"]["minimum"],
        find["properties"]["limit"]["maximum"],
        find["properties"]["limit"]["default"],
    ) == (1, 50, 10)
    assert find["properties"]["effect"]["items"]["enum"] == list(EFFECTS)
    assert find["properties"]["effect"]["maxItems"] == 20
    assert {
        "site",
        "type",
        "format",
        "method",
        "auth",
        "origin",
        "offset",
        "per_site",
        "explain",
        "group",
    } <= find["properties"].keys()
    assert tools["get_action"].input_schema["required"] == ["id"]
    assert tools["get_site"].input_schema["required"] == ["host"]
    assert tools["prepare_call"].input_schema["required"] == ["action_id"]
    assert (
        "ask your person"
        in tools["prepare_call"].output_schema["properties"]["needs_approval"]["description"]
    )
    assert "Nothing is sent" in (tools["prepare_call"].description or "")
    result = tools["find_action"].output_schema["$defs"]["FindResult"]
    assert {
        "endpoint",
        "method",
        "input_schema",
        "effect",
        "auth",
        "scope",
        "cost",
        "needs_approval",
    } <= set(result["required"])


async def found(client: Client, **arguments: Any) -> list[dict[str, Any]]:
    result = await client.call_tool("find_action", arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content["results"]  # type: ignore[no-any-return]


async def check_find(client: Client) -> None:
    """The ranking GET /find gives (tests/api/test_mcp.py compares the two), with
    needs_approval from the effect."""
    results = await found(client, query="buy printer paper")
    assert [(r["site"], r["name"], r["kind"]) for r in results] == [
        ("paperworks.example", "buy_paper", "flow"),
        ("inkwell.example", "search_catalog", "action"),
        ("inkwell.example", "order_stationery", "flow"),
    ]
    flow, search = results[0], results[1]
    assert flow["needs_approval"] is True and [s["action"] for s in flow["steps"]] == [
        "find_paper",
        "checkout",
    ]
    assert (search["method"], search["endpoint"], search["effect"], search["needs_approval"]) == (
        "GET",
        "https://inkwell.example/api/search",
        "read",
        False,
    )
    assert search["input_schema"]["required"] == ["q"]
    paying = await found(client, query="pay for the basket", limit=1, site=["paperworks.example"])
    assert [(r["name"], r["auth"], r["scope"], r["cost"], r["needs_approval"]) for r in paying] == [
        ("checkout", "oauth2", "orders:write", {"amount": 3.95, "currency": "EUR"}, True)
    ]
    explained = await found(client, query="printer paper", limit=1, explain=True)
    assert {part["field"] for part in explained[0]["explain"]} >= {"all"}
    reads = await found(client, query="buy paper", effect="read")  # one value: a list of one
    assert [(r["name"], r["effect"]) for r in reads] == [
        ("find_paper", "read"),
        ("search_catalog", "read"),
    ]


async def check_long_and_by_site(client: Client) -> None:
    """A long request is answered and says it was shortened; group="site" gives one entry
    per site, each with its best actions (needs_approval on each)."""
    long = await called(client, "find_action", query=LONG_REQUEST)
    assert long["results"] and long["results"][0]["name"] == "search_catalog"
    assert "fountain" in long["shortened"]["terms"] and long["shortened"]["dropped"] > 0
    short = await called(client, "find_action", query="buy printer paper")
    assert "shortened" not in short and "sites" not in short
    by_site = await called(client, "find_action", query="order paper", group="site")
    assert by_site["results"] == []
    assert sorted(s["site"] for s in by_site["sites"]) == ["inkwell.example", "paperworks.example"]
    for site in by_site["sites"]:
        assert all(a["site"] == site["site"] and "needs_approval" in a for a in site["actions"])


async def tool_error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error and result.structured_content is None
    return "".join(getattr(part, "text", "") for part in result.content)


async def check_find_errors(client: Client) -> None:
    """Bad input: a tool error in GET /find's words, naming the argument."""
    assert (await tool_error(client, "find_action", {"query": "paper", "limit": 51})).endswith(
        "limit: Input should be less than or equal to 50"
    )
    assert (await tool_error(client, "find_action", {"query": "   "})).endswith(
        "query: must not be empty"
    )
    assert (
        await tool_error(client, "find_action", {"query": "paper", "effect": ["pay"]})
    ).endswith("effect: Input should be 'read', 'write', 'send', 'spend' or 'delete'")
    assert (await tool_error(client, "find_action", {"query": "paper", "site": ["a b"]})).endswith(
        "site: must be a host or domain such as shop.example (with :port if not default)"
    )
    # arguments the SDK refuses before the tool runs read the same: `argument: message`
    assert (await tool_error(client, "find_action", {})).endswith(": query: Field required")
    assert (await tool_error(client, "find_action", {"query": 5})).endswith(
        ": query: Input should be a valid string"
    )


async def called(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def check_lookups(client: Client) -> None:
    """get_site lists a site's actions and flows; get_action gives one in full (a flow with
    its steps' actions); prepare_call plans the request (nothing sent)."""
    site = await called(client, "get_site", host="https://Paperworks.example/")
    assert (site["host"], site["name"]) == ("paperworks.example", "Paperworks")
    ids = {entry["name"]: entry["id"] for entry in site["actions"] + site["flows"]}
    assert set(ids) == {"find_paper", "checkout", "buy_paper"}
    assert [(d["format"], d["status"]) for d in site["documents"]] == [("agent-actions", 200)]

    checkout = await called(client, "get_action", id=ids["checkout"])
    assert (
        checkout["kind"],
        checkout["effect"],
        checkout["needs_approval"],
        checkout["method"],
        checkout["endpoint"],
        checkout["same_origin"],
    ) == ("action", "spend", True, "POST", "https://paperworks.example/api/checkout", True)
    assert (
        checkout["document"]["url"] == "https://paperworks.example/.well-known/agent-actions.json"
    )
    flow = await called(client, "get_action", id=ids["buy_paper"])
    assert [(s["action"], s["resolved"]["id"]) for s in flow["steps"]] == [
        ("find_paper", ids["find_paper"]),
        ("checkout", ids["checkout"]),
    ]
    assert flow["steps"][0]["bindings"] == {"q": "$input.query"}

    search = await called(
        client, "prepare_call", action_id=ids["find_paper"], input={"q": "A4 80g"}
    )
    assert search == {
        "method": "GET",
        "url": "https://paperworks.example/api/paper?q=A4+80g",
        "headers": {},
        "body": None,
        "needs_approval": False,
        "approval_reasons": [],
        "effect": "read",
        "cost": None,
        "scope": None,
        "auth": "none",
    }
    pay = await called(client, "prepare_call", action_id=ids["checkout"])
    assert (
        pay["method"],
        pay["url"],
        pay["needs_approval"],
        pay["cost"],
        pay["scope"],
        pay["auth"],
    ) == (
        "POST",
        "https://paperworks.example/api/checkout",
        True,
        {"amount": 3.95, "currency": "EUR"},
        "orders:write",
        "oauth2",
    )

    assert (
        await tool_error(
            client, "prepare_call", {"action_id": ids["find_paper"], "input": {"q": 5}}
        )
    ).endswith("invalid-input: $.q: 5 is not of type 'string'")
    assert "is a flow" in await tool_error(client, "prepare_call", {"action_id": ids["buy_paper"]})
    assert "no action or flow has the id '0123456789abcdef01234567'" in await tool_error(
        client, "get_action", {"id": "0123456789abcdef01234567"}
    )
    assert "knows no site 'nowhere.example'" in await tool_error(
        client, "get_site", {"host": "nowhere.example"}
    )
    assert "at most 24 characters" in await tool_error(client, "get_action", {"id": "x" * 25})

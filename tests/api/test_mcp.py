"""MCP over Streamable HTTP: `actiondex serve` answers the SDK's own client at /mcp, with the
tools, the ranking and the errors GET /find gives, and the SDK's Host guard in front."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from harness.procs import serving
from tests.helpers import mcp as checks
from tests.helpers.live import ingest_shops

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("mcp-store")
    ingest_shops(data_dir)
    return data_dir


@pytest.fixture(scope="module")
def live(store: Path) -> Iterator[str]:
    with serving(store) as base:
        yield base


def drive(url: str, check: Any, mode: str = "auto") -> None:
    async def body() -> None:
        async with Client(url, mode=mode) as client:
            await check(client)

    anyio.run(body)


# "legacy": the initialize handshake and a session (Mcp-Session-Id); "auto" finds the server
# speaks 2026-07-28 (one self-contained POST a request).
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_are_listed_with_schemas_and_annotations(live: str, mode: str) -> None:
    drive(f"{live}/mcp", checks.check_tool_list, mode)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_find_action_ranks_as_find_does(live: str, mode: str) -> None:
    drive(f"{live}/mcp", checks.check_find, mode)


def test_find_action_answers_long_requests_and_by_site(live: str) -> None:
    drive(f"{live}/mcp", checks.check_long_and_by_site)


def test_get_action_get_site_and_prepare_call(live: str) -> None:
    drive(f"{live}/mcp", checks.check_lookups)


def _get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_find_action_gives_find_s_results_and_errors(live: str) -> None:
    """The same search: the same results in the same order; a bad argument, /find's
    message for the same parameter."""
    arguments = {"query": "paper order", "limit": 4, "effect": ["spend", "read"]}
    query = urllib.parse.urlencode(
        {"q": "paper order", "limit": 4, "effect": ["spend", "read"]}, doseq=True
    )
    status, page = _get(f"{live}/find?{query}")
    assert status == 200 and len(page["results"]) == 4
    bad = [
        ({"limit": 0}, "limit=0"),
        ({"offset": 201}, "offset=201"),
        ({"origin": "mine"}, "origin=mine"),
        ({"type": ["no spaces"]}, "type=no+spaces"),
        ({"auth": ["basic"]}, "auth=basic"),
        ({"per_site": 99}, "per_site=99"),
    ]

    async def body(client: Client) -> None:
        results = await checks.found(client, **arguments)
        assert [(r["id"], r["score"]) for r in results] == [
            (r["id"], r["score"]) for r in page["results"]
        ]
        assert results == page["results"]  # the same fields, needs_approval among them
        for argument, parameter in bad:
            status, error = _get(f"{live}/find?q=paper&{parameter}")
            assert status == 422
            name = error["error"]["field"]
            message = await checks.tool_error(client, "find_action", {"query": "paper", **argument})
            assert message.endswith(f"{name}: {error['error']['message']}"), message

    drive(f"{live}/mcp", body)


def test_bad_input_is_a_tool_error(live: str) -> None:
    drive(f"{live}/mcp", checks.check_find_errors)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
# 2026-07-28: no handshake, each request says who asks.
LIST_TOOLS = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "0"},
        }
    },
}


def _post(
    url: str,
    host: str | None = None,
    origin: str | None = None,
    message: dict[str, Any] = INITIALIZE,
) -> int:
    """The status of an MCP request POSTed with these Host and Origin headers."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if message is LIST_TOOLS:
        headers |= {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
    headers |= {"Host": host} if host else {}
    headers |= {"Origin": origin} if origin else {}
    request = urllib.request.Request(
        url, data=json.dumps(message).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_a_disallowed_host_or_origin_is_refused(live: str) -> None:
    """DNS rebinding: a name that is not ours pointed at this address gets the SDK's 421; a
    page on another origin its 403; loopback by any name and its own origin pass."""
    port = live.rsplit(":", 1)[1]
    url = f"{live}/mcp"
    assert _post(url, host="evil.example") == 421
    assert _post(url, host=f"evil.example:{port}") == 421
    assert _post(url, origin="https://evil.example") == 403
    assert _post(url) == 200
    assert _post(url, host=f"localhost:{port}", origin=f"http://localhost:{port}") == 200
    # the same guard on 2026-07-28's sessionless requests
    assert _post(url, message=LIST_TOOLS) == 200
    assert _post(url, host="evil.example", message=LIST_TOOLS) == 421
    assert _post(url, origin="https://evil.example", message=LIST_TOOLS) == 403


def test_the_address_served_on_is_allowed_by_default(store: Path) -> None:
    """Not 421 for everyone: a server on another address answers that address's name (here
    127.0.0.2, loopback too), and ACTIONDEX_MCP_ALLOWED_HOSTS replaces the default."""
    with serving(store, host="127.0.0.2") as base:
        port = base.rsplit(":", 1)[1]
        assert _post(f"{base}/mcp") == 200
        assert _post(f"{base}/mcp", host="evil.example") == 421
        drive(f"{base}/mcp", checks.check_tool_list)
    with serving(store, ACTIONDEX_MCP_ALLOWED_HOSTS="registry.example, registry.example:*") as base:
        port = base.rsplit(":", 1)[1]
        assert _post(f"{base}/mcp", host=f"registry.example:{port}") == 200
        assert _post(f"{base}/mcp") == 421  # 127.0.0.1 is no longer listed
        assert (
            _post(f"{base}/mcp", host="registry.example", origin="https://registry.example") == 200
        )


def test_a_page_elsewhere_may_ask_with_mcp_s_headers(live: str) -> None:
    """CORS lets a browser send the MCP headers and read the session id; the SDK's Origin
    guard still decides whether that page is answered (above)."""
    asked = "content-type, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name"
    request = urllib.request.Request(
        f"{live}/mcp",
        method="OPTIONS",
        headers={
            "Origin": "https://agent.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": asked,
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        allowed = response.headers["Access-Control-Allow-Headers"].lower()
    assert all(header.strip() in allowed for header in asked.split(","))
    with urllib.request.urlopen(
        urllib.request.Request(f"{live}/find?q=paper", headers={"Origin": "https://agent.example"}),
        timeout=10,
    ) as response:
        assert "Mcp-Session-Id" in response.headers["Access-Control-Expose-Headers"]


def test_mcp_is_not_in_the_openapi_document(live: str) -> None:
    status, document = _get(f"{live}/openapi.json")
    assert status == 200 and "/find" in document["paths"]
    assert not [path for path in document["paths"] if path.startswith("/mcp")]


def test_metrics_name_the_mcp_route(live: str) -> None:
    assert _post(f"{live}/mcp") == 200
    with urllib.request.urlopen(f"{live}/metrics", timeout=10) as response:
        metrics = response.read().decode()
    assert 'method="POST",route="/mcp",status="200"' in metrics

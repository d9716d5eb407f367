"""The MCP parts in-process: the Host guard's defaults, and a tool error (not a crash) when
the database is away."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client
from sqlalchemy import Engine

from api.mcp.http import for_listener, listen_hosts, transport_security
from api.mcp.server import build_server
from registry.config import Settings
from registry.db.engine import make_engine
from registry.index import ActionIndex


def test_the_hosts_answered_by_default() -> None:
    loopback = ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"]
    assert listen_hosts("127.0.0.1") == loopback
    assert listen_hosts("0.0.0.0") == loopback == listen_hosts("::")  # names unknown
    assert listen_hosts("10.1.2.3")[-2:] == ["10.1.2.3", "10.1.2.3:*"]
    assert listen_hosts("fd00::5")[-2:] == ["[fd00::5]", "[fd00::5]:*"]
    guard = transport_security(Settings())
    assert guard.enable_dns_rebinding_protection and guard.allowed_hosts == loopback
    assert "http://localhost:*" in guard.allowed_origins
    assert "https://[::1]:*" in guard.allowed_origins
    assert for_listener(Settings(), "10.1.2.3").mcp_allowed_hosts[-1] == "10.1.2.3:*"


def test_settings_replace_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONDEX_MCP_ALLOWED_HOSTS", "registry.example, registry.example:*")
    monkeypatch.setenv("ACTIONDEX_MCP_ALLOWED_ORIGINS", "https://agent.example")
    settings = for_listener(Settings(), "0.0.0.0")
    guard = transport_security(settings)
    assert guard.allowed_hosts == ["registry.example", "registry.example:*"]
    assert guard.allowed_origins == ["https://agent.example"]
    assert not transport_security(Settings(mcp_allowed_hosts=["*"])).enable_dns_rebinding_protection


@dataclass
class Away:
    index: ActionIndex
    engine: Engine
    search_threads: anyio.CapacityLimiter


def test_a_database_away_is_a_tool_error(tmp_path: Path) -> None:
    """Nothing listens on port 1: each lookup says the database is unavailable, and the agent
    may try again; find_action still answers from the index."""
    engine = make_engine(
        Settings(data_dir=tmp_path, database_url="postgresql://nobody@127.0.0.1:1/none")
    )

    async def body() -> None:
        backing = Away(ActionIndex.open(tmp_path / "index"), engine, anyio.CapacityLimiter(1))
        async with Client(build_server(lambda: backing)) as client:
            for tool, arguments in [
                ("get_action", {"id": "a1" * 12}),
                ("get_site", {"host": "shop.example"}),
                ("prepare_call", {"action_id": "a1" * 12}),
            ]:
                result = await client.call_tool(tool, arguments)
                assert result.is_error, tool
                assert "database is unavailable" in result.content[0].text  # type: ignore[union-attr]
            found = await client.call_tool("find_action", {"query": "paper"})
            assert not found.is_error and found.structured_content == {
                "query": "paper",
                "results": [],
                "took_ms": found.structured_content["took_ms"],
            }

    anyio.run(body)
    engine.dispose()


def test_the_sdk_loads_only_when_mcp_is_asked(tmp_path: Path) -> None:
    """A server nobody asks over MCP never holds the SDK (~27 MB): it loads on the first
    request to /mcp, and that request is answered."""
    script = f"""
import sys
from pathlib import Path
from fastapi.testclient import TestClient
from api.app import create_app
from registry.config import Settings
app = create_app(Settings(data_dir=Path({str(tmp_path)!r})))
with TestClient(app) as client:
    assert client.get("/find", params={{"q": "buy"}}).status_code == 200
    before = "mcp.server" in sys.modules
    answer = client.post("/mcp", json={{"jsonrpc": "2.0", "id": 1, "method": "ping"}},
                         headers={{"Accept": "application/json, text/event-stream"}})
    print(before, "mcp.server" in sys.modules, answer.status_code)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    before, after, status = done.stdout.split()
    assert (before, after) == ("False", "True")
    assert status != "404" and int(status) < 500


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        ("find_action", {}, "query: Field required"),
        ("find_action", {"query": ["a"]}, "query: Input should be a valid string"),
        ("get_action", {"id": ""}, "id: String should have at least 24 characters"),
        (
            "prepare_call",
            {"action_id": "a" * 24, "input": 3},
            "input: Input should be a valid dictionary",
        ),
    ],
)
def test_arguments_that_miss_the_schema_read_like_find_s_errors(
    tool: str, arguments: dict[str, object], said: str
) -> None:
    """Not pydantic's report ("1 validation error for find_actionArguments ... https://
    errors.pydantic.dev/..."): the argument and what is wrong with it, as /find says it."""

    async def body() -> str:
        async with Client(build_server(lambda: None)) as client:  # type: ignore[arg-type,return-value]
            result = await client.call_tool(tool, arguments)
            assert result.is_error
            return "".join(getattr(part, "text", "") for part in result.content)

    message = anyio.run(body)
    assert message == f"Error executing tool {tool}: {said}", message
    assert "pydantic" not in message and "Arguments" not in message

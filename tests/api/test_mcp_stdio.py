"""MCP over stdio: `actiondex mcp`, started by the SDK's own stdio client, serves the same
tools as /mcp (here on PostgreSQL), and writes nothing but the protocol to stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from harness.db import fresh_pg_database
from harness.procs import env_for
from tests.helpers import mcp as checks
from tests.helpers.cli import run
from tests.helpers.live import ingest_shops, stdio_server
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def pg_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The two shops in a PostgreSQL database of their own (the HTTP tests use SQLite)."""
    data_dir = tmp_path_factory.mktemp("mcp-stdio")
    with fresh_pg_database(f"actiondex_mcp{os.getpid()}") as url:
        ingest_shops(data_dir, url)
        yield data_dir, url


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_tools_over_stdio(pg_store: tuple[Path, str], mode: str) -> None:
    async def body() -> None:
        async with Client(stdio_server(*pg_store), mode=mode) as client:
            await checks.check_tool_list(client)
            await checks.check_find(client)
            await checks.check_find_errors(client)
            await checks.check_lookups(client)

    anyio.run(body)


def test_the_index_follows_the_store(tmp_path: Path) -> None:
    """A site ingested while `actiondex mcp` runs is found within seconds, no restart."""
    data_dir = tmp_path / "data"
    assert run(data_dir, "ingest", str(FIXTURES / "ingest" / "shop")).returncode == 0

    async def body() -> None:
        async with Client(stdio_server(data_dir)) as client:
            assert {r["site"] for r in await checks.found(client, query="printer paper")} == {
                "inkwell.example"
            }
            assert run(data_dir, "ingest", str(FIXTURES / "ingest" / "checkout")).returncode == 0
            with anyio.fail_after(30):  # the store is read every index_poll_seconds (1 s)
                while (
                    len({r["site"] for r in await checks.found(client, query="printer paper")}) < 2
                ):
                    await anyio.sleep(0.5)

    anyio.run(body)


def test_stdout_carries_only_the_protocol(pg_store: tuple[Path, str]) -> None:
    """Each line on stdout is one JSON-RPC message answering ours; what the command says
    for people (and any log) is on stderr."""
    data_dir, url = pg_store
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "find_action", "arguments": {"query": "buy printer paper"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "find_action", "arguments": {"query": "paper", "limit": 0}},
        },
    ]
    command = [sys.executable, "-m", "actiondex", "mcp"]
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(data_dir, url),
    ) as proc:
        assert proc.stdin and proc.stdout and proc.stderr
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        # stdin stays open until every answer is in: closing it ends the server, and with it
        # the calls still running.
        answers = [json.loads(proc.stdout.readline()) for _ in range(4)]
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        rest, stderr = proc.stdout.read(), proc.stderr.read()
    assert rest == "", rest
    assert sorted(answer.get("id") for answer in answers) == [1, 2, 3, 4]
    answers.sort(key=lambda answer: answer["id"])
    assert all(answer["jsonrpc"] == "2.0" and "result" in answer for answer in answers)
    assert answers[0]["result"]["serverInfo"]["name"] == "actiondex"
    assert answers[2]["result"]["structuredContent"]["results"][0]["name"] == "buy_paper"
    assert answers[3]["result"]["isError"] is True
    assert "MCP tools on stdio" in stderr


def test_a_bad_store_is_one_line_on_stderr(tmp_path: Path) -> None:
    """Before serving, a failure is the command's usual one line, and stdout stays empty."""
    proc = subprocess.run(
        [sys.executable, "-m", "actiondex", "mcp"],
        input="",
        text=True,
        capture_output=True,
        timeout=60,
        env=env_for(tmp_path, "postgresql://nobody@127.0.0.1:1/none"),
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("actiondex: error: cannot open the database")

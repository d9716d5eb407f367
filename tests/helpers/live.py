"""Live servers for tests, as an agent or a browser meets them: `actiondex mcp` as the SDK's
stdio client starts it, and a store of two ingested shops for them to serve. `actiondex serve`
on loopback (schemathesis, the ARD conformance tools, the browser and the MCP client meet it
so) is harness.procs.serving."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

from harness.procs import env_for
from tests.helpers.cli import run
from tests.helpers.paths import FIXTURES


def ingest_shops(data_dir: Path, db_url: str = "") -> None:
    """Inkwell Stationers (tests/fixtures/ingest/shop) and Paperworks (.../checkout)."""
    if db_url:
        assert run(data_dir, "migrate", db_url=db_url).returncode == 0
    for shop in ("shop", "checkout"):
        proc = run(data_dir, "ingest", str(FIXTURES / "ingest" / shop), db_url=db_url)
        assert proc.returncode == 0, proc.stderr


def stdio_server(data_dir: Path, db_url: str = "") -> StdioServerParameters:
    """How the SDK's stdio client starts `actiondex mcp`."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "actiondex", "mcp"], env=env_for(data_dir, db_url)
    )

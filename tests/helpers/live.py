"""Live servers for tests, as an agent or a browser meets them: `actiondex serve` on loopback
over a data dir (schemathesis, the ARD conformance tools, the browser and the MCP client
meet it so), `actiondex mcp` as the SDK's stdio client starts it, and a store of two ingested
shops for them to serve."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from tests.helpers.cli import run
from tests.helpers.paths import FIXTURES


def ingest_shops(data_dir: Path, db_url: str = "") -> None:
    """Inkwell Stationers (tests/fixtures/ingest/shop) and Paperworks (.../checkout)."""
    if db_url:
        assert run(data_dir, "migrate", db_url=db_url).returncode == 0
    for shop in ("shop", "checkout"):
        proc = run(data_dir, "ingest", str(FIXTURES / "ingest" / shop), db_url=db_url)
        assert proc.returncode == 0, proc.stderr


def env_for(data_dir: Path, db_url: str = "", **extra: str) -> dict[str, str]:
    """The environment of a server over ``data_dir`` (SQLite unless ``db_url``), rate limit
    off, plus ``extra`` ACTIONDEX_ variables."""
    env = {**os.environ, "ACTIONDEX_DATA_DIR": str(data_dir), "ACTIONDEX_DATABASE_URL": db_url,
           "ACTIONDEX_RATE_LIMIT": "0", **extra}
    env.pop("ACTIONDEX_DEBUG", None)
    return env


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(data_dir: Path, host: str = "127.0.0.1", **extra: str) -> Iterator[str]:
    """`actiondex serve --host HOST` over ``data_dir`` on a free port; yields its base URL."""
    port = free_port(host)
    command = [sys.executable, "-m", "actiondex", "serve", "--host", host, "--port", str(port)]
    # stderr to a file, not a pipe: the access log writes a line per request, and a pipe
    # nobody reads would stop the server once it is full.
    log = data_dir / f"serve-{port}.log"
    with log.open("wb") as sink, subprocess.Popen(command, env=env_for(data_dir, **extra),
                                                  stdout=subprocess.DEVNULL,
                                                  stderr=sink) as server:
        base = f"http://{host}:{port}"
        try:
            wait_for(f"{base}/healthz", server, log)
            yield base
        finally:
            server.terminate()
            server.wait(timeout=30)


def wait_for(url: str, server: subprocess.Popen[bytes], log: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{url} did not answer in {seconds:.0f} s")


def stdio_server(data_dir: Path, db_url: str = "") -> StdioServerParameters:
    """How the SDK's stdio client starts `actiondex mcp`."""
    return StdioServerParameters(command=sys.executable, args=["-m", "actiondex", "mcp"],
                                 env=env_for(data_dir, db_url))

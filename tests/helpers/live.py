"""A live `actiondex serve` on loopback over a data dir, as an agent or a browser meets it
(the same steps as tests/api/test_openapi.py's ``live`` fixture, which could use it)."""

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(data_dir: Path) -> Iterator[str]:
    """`actiondex serve` over ``data_dir`` (SQLite), rate limit off; yields its base URL."""
    port = free_port()
    env = {**os.environ, "ACTIONDEX_DATA_DIR": str(data_dir), "ACTIONDEX_DATABASE_URL": "",
           "ACTIONDEX_RATE_LIMIT": "0"}
    command = [sys.executable, "-m", "actiondex", "serve", "--port", str(port)]
    # stderr to a file, not a pipe: the access log writes a line per request, and a pipe
    # nobody reads would stop the server once it is full.
    log = data_dir / "serve.log"
    with log.open("wb") as sink, subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                                  stderr=sink) as server:
        base = f"http://127.0.0.1:{port}"
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
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback only
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{url} did not answer in {seconds:.0f} s")

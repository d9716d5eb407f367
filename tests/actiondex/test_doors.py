"""What `actiondex serve` (and so `make demo`) says about where its doors are is true: every
address it prints answers."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

from harness.procs import serving
from tests.helpers.live import ingest_shops


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_every_door_serve_prints_answers(data_dir: Path) -> None:
    ingest_shops(data_dir)
    with serving(data_dir) as base:
        port = base.rsplit(":", 1)[1]
        said = (data_dir / f"serve-{port}.log").read_text()
        urls = sorted(set(re.findall(rf"{re.escape(base)}[^\s)]*", said)))
        paths = {url.removeprefix(base).split("?")[0] for url in urls}
        assert {
            "/",
            "/validator",
            "/find",
            "/docs",
            "/mcp",
            "/ard/agents",
            "/.well-known/ard.json",
            "/readyz",
            "/metrics",
        } <= paths, said
        for url in urls:
            status = _status(url)
            if url.endswith("/mcp"):
                # MCP answers a plain GET with a protocol refusal (no session, no SSE accept).
                assert 400 <= status < 500 and status not in (404, 421), (url, status)
            else:
                assert status == 200, (url, status)

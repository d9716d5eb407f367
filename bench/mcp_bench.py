"""MCP's cost over GET /find: the same searches one at a time against `actiondex serve`.

    .venv/bin/python -m bench.mcp_bench [--actions 10000] [--queries 300] [--cache DIR]

On the seeded synthetic store of bench.find_bench, each query is asked four ways, one after
another on one connection: GET /find; find_action as one raw 2026-07-28 POST to /mcp (the
server's share: the SDK's dispatch, the tool, structured and text output); and through the
SDK's own client in both protocol eras (the handshake's session, answered as SSE, and
2026-07-28), which adds the client's own work (it checks each result against the output
schema). Prints p50 and p99 per way.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import httpx2 as httpx
from mcp import Client

from bench.find_bench import cache_file, percentiles, stored
from bench.http_load import WARM
from bench.synthetic import queries
from harness.procs import start
from registry.config import Settings
from registry.db.engine import make_engine, transaction
from registry.index import ActionIndex

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcp_bench", "version": "0"},
}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Mcp-Protocol-Version": MODERN,
    "Mcp-Method": "tools/call",
    "Mcp-Name": "find_action",
}


async def timed(ask: Callable[[str], Awaitable[None]], qs: list[str]) -> tuple[float, float]:
    for q in qs[:20]:  # warm: the first searches fill caches
        await ask(q)
    samples = []
    for q in qs:
        start = time.perf_counter()
        await ask(q)
        samples.append((time.perf_counter() - start) * 1000)
    return percentiles(samples)


async def measure(base: str, qs: list[str]) -> dict[str, tuple[float, float]]:
    rows = {}
    async with httpx.AsyncClient(base_url=base) as http:

        async def find(q: str) -> None:
            (await http.get("/find", params={"q": q})).raise_for_status()

        async def raw(q: str) -> None:
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "find_action", "arguments": {"query": q}, "_meta": META},
            }
            answer = await http.post("/mcp", json=body, headers=HEADERS)
            assert answer.status_code == 200 and '"isError":true' not in answer.text

        rows["GET /find"] = await timed(find, qs)
        rows["POST /mcp find_action (raw, 2026-07-28)"] = await timed(raw, qs)
    for mode, name in (
        ("legacy", "SDK client, handshake + session"),
        ("auto", "SDK client, 2026-07-28"),
    ):
        async with Client(f"{base}/mcp", mode=mode) as client:

            async def tool(q: str, client: Client = client) -> None:
                assert not (await client.call_tool("find_action", {"query": q})).is_error

            rows[name] = await timed(tool, qs)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="keep the synthetic store here and reuse it (as find_bench)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{cache_file(args.cache, args.actions).resolve()}" if args.cache else ""
        settings = Settings(data_dir=Path(tmp), database_url=url)
        stored(settings, args.actions, args.cache)
        with transaction(make_engine(settings)) as session:
            ActionIndex.rebuild(settings.index_path, session)
        os.environ["ACTIONDEX_ACCESS_LOG"] = "false"  # the server inherits it: a quiet table
        server = start(settings.data_dir, ready=WARM, ACTIONDEX_DATABASE_URL=settings.database_url)
        try:
            rows = anyio.run(measure, server.base, queries(args.queries))
        finally:
            server.stop()
    print(f"{args.actions:,} actions, {args.queries} queries one at a time (ms)")
    print(f"{'way':<42}{'p50':>8}{'p99':>8}")
    for name, (p50, p99) in rows.items():
        print(f"{name:<42}{p50:>8.2f}{p99:>8.2f}")


if __name__ == "__main__":
    main()

"""What liveness probes cost: outcomes, requests and seconds per 1,000 loopback endpoints.

    .venv/bin/python -m bench.probe_bench [--endpoints 1000] [--timeout 1.5]

The endpoints are MCP servers on one loopback server (harness/mcp_web.py), one host name each,
in the proportions the MCP Registry's entries showed (issue 22: ~58% complete the handshake, a
quarter need auth, ~9% answer HTTP but not MCP, ~6% unreachable): the live ones half the MCP
SDK's own server (2026-07-28 ``server/discover``), half an older one that knows only
``initialize``; the unreachable ones a closed port, plus one in a hundred that answers slower
than the probe waits. Baseline row: one plain HTTP GET of each same endpoint through the same
guarded client (what "is it up?" costs without asking the protocol, and all it can tell).
Hosts are probed ``Settings.probe_concurrency`` at once, without the crawl delay; the probe
row counts each host's robots.txt request and signs every request, as a crawl's probes do.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2

from crawler.guard import AddressPolicy
from crawler.probes import probe_all
from crawler.probes.polite import Polite
from crawler.probes.transport import client
from harness.mcp_web import ProbeWeb
from registry.config import Settings
from registry.model.liveness import ProbeTarget

MIX = (("live", 0.29), ("old", 0.29), ("auth", 0.25), ("web", 0.09), ("dead", 0.07), ("slow", 0.01))


def hosts(count: int) -> list[str]:
    names = []
    for kind, share in MIX:
        names += [f"{kind}-{i}.mcp.test" for i in range(round(count * share))]
    return names[:count]


def baseline(web: ProbeWeb, names: list[str], policy: AddressPolicy, settings: Settings) -> dict:
    def get(host: str) -> str:
        with client(policy, settings.user_agent, settings.probe_timeout) as http:
            try:
                return str(http.get(web.url(host, "/mcp")).status_code)
            except httpx2.HTTPError as exc:
                return type(exc).__name__

    started = time.monotonic()
    with ThreadPoolExecutor(settings.probe_concurrency) as pool:
        found = Counter(pool.map(get, names))
    return {"seconds": time.monotonic() - started, "requests": len(names), "outcomes": found}


def probes(web: ProbeWeb, names: list[str], policy: AddressPolicy, settings: Settings) -> dict:
    targets = [
        ProbeTarget(h, web.url(h, "/mcp"), web.url(h, "/mcp"), "mcp", "handshake") for h in names
    ]
    started = time.monotonic()
    polite = Polite(settings)  # robots.txt once per host, every request signed
    outcomes = probe_all(targets, policy, settings, delay=0, polite=polite)
    return {
        "seconds": time.monotonic() - started,
        "requests": sum(o.requests for o in outcomes) + polite.requests,
        "outcomes": Counter(o.status for o in outcomes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=1.5)
    args = parser.parse_args()
    web = ProbeWeb().start()
    names = hosts(args.endpoints)
    entries = {(h, web.port): "127.0.0.1" for h in names}
    entries |= {(h, web.dead_port): "127.0.0.1" for h in names}
    policy = AddressPolicy(resolve=entries)
    keys = tempfile.TemporaryDirectory()  # the signing key the probes make: not the user's
    settings = Settings(probe_timeout=args.timeout, data_dir=Path(keys.name))
    rows = [("plain GET (baseline)", baseline(web, names, policy, settings))]
    rows.append(("liveness probes", probes(web, names, policy, settings)))
    web.stop()
    keys.cleanup()
    per = 1000 / len(names)
    print(
        f"{len(names)} loopback endpoints, {settings.probe_concurrency} hosts at once, "
        f"probe timeout {args.timeout} s; figures per 1,000 endpoints"
    )
    print("| way | requests | seconds | outcomes |\n|---|---:|---:|---|")
    for name, row in rows:
        outcomes = ", ".join(f"{k} {round(v * per)}" for k, v in sorted(row["outcomes"].items()))
        print(
            f"| {name} | {round(row['requests'] * per)} | {row['seconds'] * per:.1f} | {outcomes} |"
        )


if __name__ == "__main__":
    main()

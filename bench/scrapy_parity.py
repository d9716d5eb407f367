"""One `actiondex crawl` process against a plain Scrapy spider fetching the very same URLs at the
same politeness (issue 23.1), in one run, alternating, more than once.

    .venv/bin/python -m bench.scrapy_parity [--sites 150] [--rounds 2] [--base DIR]

N loopback sites, each publishing an agent-actions manifest and a homepage with a JSON-LD
SearchAction. Each round runs `actiondex crawl --file` (a fresh embedded store, the default 1 s
between requests to one host) and then bench/plain_spider.py (the baseline) over the URLs that
crawl asked for, in the same order of magnitude of politeness (1 s, 2 per host, AutoThrottle)
with Scrapy's broad-crawl settings, parsing and storing nothing. seconds: each process's wall
time, start to exit; CPU seconds: its user + system time (the load of a shared machine moves it
less than wall time, though it does). The politeness floor is (requests per site - 1) seconds.
``--base DIR`` (another checkout, e.g. a worktree of main) adds its `actiondex crawl --file` to
each round, run from DIR with this interpreter, so a change is measured against what it changes
in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.procs import AX, env_for
from harness.styles import agent_actions, jsonld_page
from harness.web import LoopbackWeb, Site, html_reply, json_reply

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "/.well-known/agent-actions.json"


def build_web(count: int) -> LoopbackWeb:
    web = LoopbackWeb({})
    for n in range(count):
        host = f"shop{n}.test"
        web.sites[host] = Site(
            {
                MANIFEST: json_reply(agent_actions(f"shop_{n}")),
                "/": html_reply(jsonld_page(web.url(host)[:-1], f"search_{n}")),
            }
        )
    return web


def ours(web: LoopbackWeb, tmp: Path, root: Path = ROOT) -> dict[str, Any]:
    data = tmp / f"store{time.monotonic_ns()}"
    data.mkdir()
    targets = data / "targets.txt"
    targets.write_text("\n".join(web.url(h) for h in web.sites) + "\n")
    flags = [a for e in web.resolve_args() for a in ("--resolve", e)]
    since = len(web.log)
    started, cpu = time.monotonic(), children_cpu()
    proc = subprocess.run(
        [*AX, "crawl", "--json", "--file", str(targets), *flags],
        env=env_for(data, PYTHONPATH=str(root)),
        capture_output=True,
        text=True,
        cwd=root,  # `-m actiondex` imports the checkout it runs in
        timeout=1800,
    )
    seconds, cpu = time.monotonic() - started, children_cpu() - cpu
    if not proc.stdout.strip():
        raise SystemExit(f"crawl failed: {proc.stderr[-2000:]}")
    summary = json.loads(proc.stdout)
    urls = [web.url(h, path) for h, path, _ in web.log[since:]]
    return {
        "requests": len(urls),
        "seconds": seconds,
        "cpu": cpu,
        "actions": summary["actions"],
        "sites": summary["sites"],
        "urls": urls,
    }


def plain(urls: list[str], tmp: Path) -> dict[str, Any]:
    listing = tmp / "urls.json"
    listing.write_text(json.dumps(urls))
    started, cpu = time.monotonic(), children_cpu()
    proc = subprocess.run(
        [sys.executable, "-m", "bench.plain_spider", str(listing)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    seconds, cpu = time.monotonic() - started, children_cpu() - cpu
    if not proc.stdout.strip():
        raise SystemExit(f"plain spider failed: {proc.stderr[-2000:]}")
    return {**json.loads(proc.stdout.splitlines()[-1]), "seconds": seconds, "cpu": cpu}


def children_cpu() -> float:
    """User + system seconds of this process's children that have exited."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--base", type=Path, help="another checkout to run beside this one")
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp, build_web(args.sites) as web:
        urls: list[str] = []
        for n in range(1, args.rounds + 1):
            if urls:  # alternate: baseline first from the second round on
                rows.append((f"plain Scrapy spider, round {n} (baseline)", plain(urls, Path(tmp))))
            if args.base is not None and n % 2 == 0:
                rows.append(
                    (f"crawl --file at {args.base}, round {n}", ours(web, Path(tmp), args.base))
                )
            run = ours(web, Path(tmp))
            urls = run["urls"]
            rows.append((f"actiondex crawl --file, round {n}", run))
            if args.base is not None and n % 2 == 1:
                rows.append(
                    (f"crawl --file at {args.base}, round {n}", ours(web, Path(tmp), args.base))
                )
            if n == 1:
                rows.append((f"plain Scrapy spider, round {n} (baseline)", plain(urls, Path(tmp))))
    _print(rows, args)


def _print(rows: list[tuple[str, dict[str, Any]]], args: argparse.Namespace) -> None:
    base = [r["seconds"] for label, r in rows if "baseline" in label]
    mean = sum(base) / len(base)
    cpu = [r["cpu"] for label, r in rows if "baseline" in label]
    cpu_mean = sum(cpu) / len(cpu)
    per_site = rows[0][1]["requests"] / args.sites
    print(
        f"scrapy parity: {args.sites} loopback sites, {per_site:.0f} requests a site, 1 s per "
        f"host (floor {per_site - 1:.0f} s); {os.cpu_count()} cores, load "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
    print(
        "| run | requests | seconds | requests/s | vs the baseline mean "
        "| CPU seconds | CPU vs the baseline mean |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, row in rows:
        print(
            f"| {label} | {row['requests']} | {row['seconds']:.1f} | "
            f"{row['requests'] / row['seconds']:.0f} | {row['seconds'] / mean:.2f}x | "
            f"{row['cpu']:.1f} | {row['cpu'] / cpu_mean:.2f}x |"
        )


if __name__ == "__main__":
    main()

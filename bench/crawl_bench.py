"""Crawl throughput on a loopback web of fictional sites, against `scrapy bench` run alongside.

    .venv/bin/python -m bench.crawl_bench [--sites 200] [--max-pages 5] [--delay 0]

Serves N sites in every publishing style (harness/styles.py) from one loopback server,
crawls them with `actiondex crawl` (extraction, normalising and storing on, into a fresh SQLite
store), crawls them again unchanged (conditional GET: 304s and unchanged hashes write
nothing), then runs `scrapy bench` (Scrapy's own loopback link-following spider, no storing).
Prints one table: pages/min is HTTP requests completed per minute of wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.procs import AX, env_for
from harness.styles import STYLES, site
from harness.web import LoopbackWeb

ROOT = Path(__file__).resolve().parent.parent


def build_web(count: int) -> LoopbackWeb:
    web = LoopbackWeb({})
    for n in range(count):
        style = STYLES[n % len(STYLES)]
        host = f"{style.replace('_', '-')}-{n}.bench.test"
        web.sites[host] = site(style, web.url(host)[:-1], n)[0]
    return web


def crawl(web: LoopbackWeb, data: Path, max_pages: int, delay: float) -> dict[str, Any]:
    targets = data / "targets.txt"
    targets.write_text("\n".join(web.url(h) for h in web.sites) + "\n")
    flags = [a for e in web.resolve_args() for a in ("--resolve", e)]
    cmd = [
        *AX,
        "crawl",
        "--json",
        "--file",
        str(targets),
        "--max-pages",
        str(max_pages),
        "--delay",
        str(delay),
        *flags,
    ]
    started = time.monotonic()
    proc = subprocess.run(
        cmd, env=env_for(data), capture_output=True, text=True, cwd=ROOT, timeout=1800
    )
    seconds = time.monotonic() - started
    if not proc.stdout.strip():
        raise SystemExit(f"crawl failed: {proc.stderr[-2000:]}")
    summary = json.loads(proc.stdout)
    summary["wall"] = seconds
    summary["rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return summary


def scrapy_bench() -> tuple[float, float]:
    """(pages/min, seconds) from `scrapy bench`'s final stats."""
    cmd = [
        sys.executable,
        "-m",
        "scrapy",
        "bench",
        "-s",
        "CLOSESPIDER_TIMEOUT=10",
        "-s",
        "LOG_LEVEL=INFO",
    ]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir()
    )
    count = re.search(r"'response_received_count': (\d+)", proc.stderr)
    elapsed = re.search(r"'elapsed_time_seconds': ([\d.]+)", proc.stderr)
    if not count or not elapsed:
        raise SystemExit(f"scrapy bench printed no stats: {proc.stderr[-2000:]}")
    seconds = float(elapsed.group(1))
    return int(count.group(1)) / seconds * 60, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=200)
    parser.add_argument("--max-pages", type=int, default=5)
    parser.add_argument(
        "--delay", type=float, default=0.0, help="per-host minimum delay (the crawl default is 1 s)"
    )
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, build_web(args.sites) as web:
        first = crawl(web, Path(tmp), args.max_pages, args.delay)
        again = crawl(web, Path(tmp), args.max_pages, args.delay)
    bench_ppm, bench_s = scrapy_bench()
    for label, run in (
        ("actiondex crawl (first)", first),
        ("actiondex recrawl (unchanged)", again),
    ):
        ppm = run["requests"] / run["wall"] * 60
        rows.append(
            (
                label,
                run["sites"],
                run["requests"],
                run["actions"],
                run["wall"],
                ppm,
                f"{ppm / bench_ppm:.0%}",
                f"{run['rss_mb']:.0f}",
            )
        )
    rows.append(("scrapy bench (baseline)", "-", "-", "-", bench_s, bench_ppm, "100%", "-"))
    _print(rows, first["wall"] / again["wall"], args)


def _print(rows: list[tuple[Any, ...]], speedup: float, args: argparse.Namespace) -> None:
    head = (
        "run",
        "sites",
        "requests",
        "actions",
        "seconds",
        "pages/min",
        "vs bench",
        "peak RSS MB",
    )
    print(
        f"crawl bench: {args.sites} loopback sites, {len(STYLES)} publishing styles, "
        f"--max-pages {args.max_pages}, --delay {args.delay:g}, {os.cpu_count()} cores"
    )
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    for row in rows:
        cells = [
            f"{c:.1f}"
            if isinstance(c, float) and i == 4
            else f"{c:,.0f}"
            if isinstance(c, float)
            else str(c)
            for i, c in enumerate(row)
        ]
        print(" | ".join(cells))
    print(
        f"recrawl speed-up: {speedup:.1f}x (goal >= 3x); peak RSS is the largest crawl "
        "process so far"
    )


if __name__ == "__main__":
    main()

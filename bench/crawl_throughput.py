"""Distributed crawl throughput: pages/min with 1 and 2 workers, beside `scrapy bench`.

    .venv/bin/python -m bench.crawl_throughput [--sites 40] [--concurrency 2] [--delay 0]

Serves N loopback sites in every publishing style (harness/styles.py) from one server.
Each row is a fresh PostgreSQL database (ACTIONDEX_TEST_DATABASE_URL's server): `actiondex
migrate`, the sites made known, then `actiondex schedule` and K `actiondex worker` processes
(the docker-compose.yml commands) until every site is crawled. One `actiondex crawl` of all the
sites in one process is a row too (no queue, one Scrapy run), and `scrapy bench` (Scrapy's own
loopback spider, no storing) is the reference. pages/min: HTTP requests answered per minute
from the first request to the last site stored.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bench.crawl_bench import build_web, scrapy_bench
from harness.db import engine_for, fresh_pg_database, make_known
from harness.procs import AX, env_for
from harness.web import LoopbackWeb
from registry.db.engine import transaction
from registry.db.tables import Site


def cluster_env(url: str, data: Path, web: LoopbackWeb, delay: float) -> dict[str, str]:
    return env_for(
        data,
        url,
        ACTIONDEX_RESOLVE=",".join(web.resolve_args()),
        ACTIONDEX_SCHEDULE_INTERVAL="1",
        ACTIONDEX_WORKER_DELAY=f"{delay:g}",
    )


def seeded(url: str, data: Path, web: LoopbackWeb, env: dict[str, str]) -> Any:
    subprocess.run([*AX, "migrate"], env=env, check=True, capture_output=True, timeout=300)
    engine = engine_for(url, data)
    with transaction(engine) as session:
        make_known(session, {host: web.url(host)[:-1] for host in web.sites})
    return engine


def crawled(engine: Any) -> int:
    with transaction(engine) as session:
        return int(
            session.scalar(
                select(func.count()).select_from(Site).where(Site.crawl_state.is_not(None))
            )
            or 0
        )


def cluster(web: LoopbackWeb, workers: int, concurrency: int, delay: float) -> dict[str, Any]:
    web.log.clear()
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_pg_database(f"actiondex_tp{os.getpid()}") as url,
    ):
        data = Path(tmp)
        env = cluster_env(url, data, web, delay)
        engine = seeded(url, data, web, env)
        procs = [subprocess.Popen([*AX, "schedule"], env=env, stderr=subprocess.DEVNULL)]
        procs += [
            subprocess.Popen(
                [*AX, "worker", "--concurrency", str(concurrency)],
                env=env,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(workers)
        ]
        try:
            while crawled(engine) < len(web.sites):
                if any(p.poll() is not None for p in procs):
                    raise SystemExit("a worker or the scheduler exited early")
                time.sleep(0.5)
            done = time.monotonic()
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait(timeout=120)
            engine.dispose()
    return _rate(web, done)


def one_process(web: LoopbackWeb, delay: float) -> dict[str, Any]:
    web.log.clear()
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_pg_database(f"actiondex_tp{os.getpid()}") as url,
    ):
        data = Path(tmp)
        env = cluster_env(url, data, web, delay)
        seeded(url, data, web, env).dispose()
        targets = [web.url(h)[:-1] for h in web.sites]
        subprocess.run(
            [*AX, "crawl", "--json", "--delay", f"{delay:g}", *targets],
            env=env,
            capture_output=True,
            timeout=1800,
        )
        return _rate(web, time.monotonic())


def _rate(web: LoopbackWeb, done: float) -> dict[str, Any]:
    times = sorted(float(h["_at"]) for _, _, h in list(web.log))
    seconds = done - times[0]
    return {"requests": len(times), "seconds": seconds, "ppm": len(times) / seconds * 60}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=2, help="crawl children per worker")
    parser.add_argument("--delay", type=float, default=0.0, help="per-host delay in each crawl")
    args = parser.parse_args()
    with build_web(args.sites) as web:
        rows = [("actiondex crawl, one process", one_process(web, args.delay))]
        for workers in (1, 2):
            rows.append(
                (
                    f"{workers} worker{'s' if workers > 1 else ''} x {args.concurrency}",
                    cluster(web, workers, args.concurrency, args.delay),
                )
            )
    bench_ppm, bench_s = scrapy_bench()
    rows.append(
        ("scrapy bench (reference)", {"requests": "-", "seconds": bench_s, "ppm": bench_ppm})
    )
    print(
        f"crawl throughput: {args.sites} loopback sites on PostgreSQL, --delay "
        f"{args.delay:g}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end"
    )
    print("run | requests | seconds | pages/min | vs scrapy bench")
    print("--- | --- | --- | --- | ---")
    for label, row in rows:
        print(
            f"{label} | {row['requests']} | {row['seconds']:.1f} | {row['ppm']:,.0f} | "
            f"{row['ppm'] / bench_ppm:.1%}"
        )


if __name__ == "__main__":
    main()

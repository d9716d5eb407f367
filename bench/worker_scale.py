"""Sites per hour at scale (issue 23.5): one `actiondex crawl --due` process (the baseline) and
1, 2 and 4 `actiondex worker`s on PostgreSQL, recrawling the same due sites, in one run.

    .venv/bin/python -m bench.worker_scale [--sites 1000] [--workers 1,2,4]
        [--worker-args "--concurrency 128 --batch 64" [--worker-args ...]]

N loopback sites from one threaded server: each answers after 20-100 ms (fixed per site), one in
fifty answers its home page after 3 s (slow), one in thirty answers 500 to everything (failing);
most publish a JSON-LD SearchAction, every third an agent-actions manifest too. Every site is
crawled once first (every path probed: the first-crawl row) and recrawled once, not a baseline
(what a loaded first crawl left unfinished is asked again). Then each row makes every site due
and times its recrawl: the one process from start to exit, the workers (with the scheduler,
started and warm before) from the moment the sites are due until every one is recrawled. The
baseline runs first and last; ratios are to their mean. Per row: the machine's CPU seconds over
the timed span (every process: the web and PostgreSQL too); requests a site; the workers'
peak RSS (each worker process) and peak PSS (a worker with its forkserver and crawl children);
the database's load from pg_stat_database (transactions and rows written a site).
`--sites 10000` works (the names reach the processes through a `.env` file, bench/fleet.py);
the machine it runs on bounds it, not the bench.

100,000 sites a day, from the measurement: 100,000 / 86,400 s = 1.2 sites a second on average,
so a deployment needs ceil(1.2 x 3600 / (sites an hour of one worker)) workers, with the
headroom a burst of due sites asks for, and the database takes 1.2 x (transactions a site)
transactions and 1.2 x (rows written a site) row writes a second. One run here (`--sites 5000`,
2 cores, nothing else running, 35.7 min; the README's "Running at scale" has the table): one
process recrawled 222,000-245,000 sites an hour and a first crawl ran at 33,600; one worker
recrawled 52,300 an hour (one worker covers 100,000 a day at ~8% busy; ~13 transactions/s),
but two workers took 7.5x the one process: each job waited for its batch child's slowest site.
After a job ended with its site stored, and the queue's fixes (README, "Running at scale"),
`--sites 2000 --workers 1,2` gave 1 worker 1.53x and 2 workers 1.50x the one process; with
children of up to 512 sites (the defaults since), 2 workers 1.11x at 2,000 sites, and at 10,000
1 worker 1.62x, 2 workers 1.82x, 4 workers 2.36x the baseline that did the same work (README).
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import make_url

from bench.fleet import Fleet, baseline_mean, cells, cluster, fleet, one_process
from harness.styles import agent_actions, jsonld_page
from harness.web import LoopbackWeb, Reply, Site, html_reply, json_reply

DAY = 100_000  # sites a day to size for


class QuietWeb(LoopbackWeb):
    """A loopback web whose request log keeps host and path only (10,000 sites' requests
    with their headers would be hundreds of MB)."""

    def record(self, host: str, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.log.append((host, path, {}))


def build_web(count: int) -> QuietWeb:
    web = QuietWeb({})
    for n in range(count):
        host = f"site{n}.test"
        delay = 0.02 + (n * 37 % 81) / 1000  # 20-100 ms, fixed per site
        if n % 30 == 7:
            web.sites[host] = Site(fallback=Reply(500, b"down\n", delay=delay))
            continue
        home = html_reply(jsonld_page(web.url(host)[:-1], f"search_{n}"))
        home.delay = 3.0 if n % 50 == 3 else delay
        paths: dict[str, Reply | list[Reply]] = {"/": home}
        if n % 3 == 0:
            manifest = json_reply(agent_actions(f"site_{n}"))
            manifest.delay = delay
            paths["/.well-known/agent-actions.json"] = manifest
        web.sites[host] = Site(paths, fallback=Reply(404, b"no\n", delay=delay))
    return web


def db_load(url: str) -> dict[str, int]:
    """The database's counters so far (pg_stat_database)."""
    dsn = make_url(url).render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted "
            "FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    assert row is not None
    return {"transactions": int(row[0]), "writes": int(row[1])}


def measured(f: Fleet, run: Any) -> dict[str, Any]:
    before = db_load(f.url)
    row = run()
    time.sleep(1.5)  # backends report their counters within a second
    after = db_load(f.url)
    return {**row, **{k: after[k] - before[k] for k in after}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=1000)
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument(
        "--worker-args",
        action="append",
        help="extra `actiondex worker` arguments; given again, each is a row of its own",
    )
    parser.add_argument("--logs", type=Path, help="keep the workers' and scheduler's logs here")
    args = parser.parse_args()
    variants = [shlex.split(each) for each in args.worker_args or [""]]
    rows: list[tuple[str, dict[str, Any]]] = []
    started = time.monotonic()
    with build_web(args.sites) as web, fleet(web, f"bench_scale{os.getpid()}") as f:
        first = "first crawl, one process (every path probed)"
        _add(rows, first, measured(f, lambda: one_process(f)), args.sites)
        # At 10,000 sites the first recrawl still sent 2.4 requests a site (4.0 row writes),
        # the later ones 1.4 (2.0): what a loaded first crawl left unfinished is asked again.
        # So one recrawl settles the store first, and every timed row does the same work.
        settle = "second crawl, one process (settles what the first left)"  # no ratio's base
        _add(rows, settle, measured(f, lambda: one_process(f)), args.sites)
        base = "one `actiondex crawl --due` process (baseline)"
        _add(rows, base, measured(f, lambda: one_process(f)), args.sites)
        for k in (int(w) for w in args.workers.split(",")):
            for extra in variants:
                name = f"{k} worker{'s' if k > 1 else ''} {' '.join(extra) or '(defaults)'}"
                run = lambda k=k, extra=extra: cluster(f, k, extra, keep=args.logs)  # noqa: E731
                _add(rows, name, measured(f, run), args.sites)
        _add(rows, base, measured(f, lambda: one_process(f)), args.sites)
    _print(rows, args.sites, time.monotonic() - started)


def _add(
    rows: list[tuple[str, dict[str, Any]]], label: str, row: dict[str, Any], sites: int
) -> None:
    """Keep a row and say it on stderr at once: a run of an hour cut short keeps what it
    measured (the table, with its ratios, comes at the end)."""
    rows.append((label, row))
    print(
        f"done: {label} | {cells(row, sites)} | {row['transactions'] / sites:.1f} | "
        f"{row['writes'] / sites:.1f} | CPU by role: {row.get('roles')}",
        file=sys.stderr,
        flush=True,
    )


def _print(rows: list[tuple[str, dict[str, Any]]], sites: int, total: float) -> None:
    mean = baseline_mean(rows)
    print(
        f"worker scale: {sites} loopback sites (20-100 ms answers, 2% slow, 3% failing), "
        f"PostgreSQL, 1 s per host; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at "
        f"the end; {total / 60:.1f} min in all"
    )
    print(
        "| run | seconds | machine CPU seconds | sites/hour | requests a site | peak worker RSS "
        "MB | peak worker + children PSS MB | DB transactions a site | DB rows written a site "
        "| vs baseline |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, row in rows:
        print(
            f"| {label} | {cells(row, sites)} | {row['transactions'] / sites:.1f} | "
            f"{row['writes'] / sites:.1f} | {row['seconds'] / mean:.2f}x |"
        )
    print("\nWhere the machine's CPU went, seconds over each timed span (bench/fleet.cpu_by_role):")
    for label, row in rows:
        roles = sorted(row.get("roles", {}).items(), key=lambda pair: -pair[1])
        print(f"- {label}: " + ", ".join(f"{role} {cpu:.1f}" for role, cpu in roles if cpu))
    _extrapolate(rows)


def _extrapolate(rows: list[tuple[str, dict[str, Any]]]) -> None:
    """What 100,000 sites a day needs, from the one-worker row (and the best per worker)."""
    per_second = DAY / 86_400
    print(f"\n{DAY:,} sites a day = {per_second:.2f} sites/s on average:")
    for label, row in rows:
        if "worker" not in label or "memory" not in row:
            continue
        workers = int(label.split()[0])
        per_worker = row["done"] / row["seconds"] * 3600 / workers
        need = math.ceil(per_second * 3600 / per_worker)
        print(
            f"- from '{label}': {per_worker:,.0f} sites/hour a worker -> {need} worker(s) "
            f"busy {per_second * 3600 / per_worker / need:.0%}; database "
            f"{per_second * row['transactions'] / row['done']:.1f} transactions/s, "
            f"{per_second * row['writes'] / row['done']:.1f} row writes/s"
        )


if __name__ == "__main__":
    main()

"""The worker's memory over 500 crawl jobs: its RSS must not grow with the jobs it has run.

    .venv/bin/python -m bench.worker_rss [--jobs 500] [--concurrency 2]

A worker runs each crawl in a child process (actiondex/jobs/child.py), so what could leak in
the worker is its own side of a job: the queue's fetch and finish, the politeness check in the
store, the child's pipes and the summary it prints. This bench runs the real worker (the
procrastinate App of `actiondex worker`, in this process, over a fresh PostgreSQL database with
one site per job, its children forked from the pre-loaded forkserver) and swaps only the
child's command: `actiondex validate FILE --json` (one JSON object on stdout, as a crawl's
summary) instead of a crawl, so 500 jobs take minutes rather than an hour of crawling. The
worker's RSS is read after every job; the first job is the baseline row.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from actiondex.jobs import tasks
from actiondex.jobs.app import CRAWL_QUEUE, make_app
from actiondex.jobs.schema import ensure_schema
from harness.db import fresh_pg_database, make_known
from registry.config import Settings
from registry.db.engine import make_engine, migrate, transaction

ROOT = Path(__file__).resolve().parent.parent

MANIFEST = ROOT / "tests" / "fixtures" / "ingest" / "shop" / "agent-actions.json"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def stand_in(target: str, due: bool, delay: float, max_pages: int) -> list[str]:
    return ["validate", str(MANIFEST), "--json"]


async def run(url: str, data: Path, jobs: int, concurrency: int) -> list[tuple[int, float]]:
    settings = Settings(database_url=url, data_dir=data)
    engine = make_engine(settings)
    migrate(engine)
    ensure_schema(engine)
    with transaction(engine) as session:
        make_known(session, {f"shop{n}.test": f"http://shop{n}.test" for n in range(jobs)})
    engine.dispose()
    app = make_app(settings)
    samples: list[tuple[int, float]] = []
    real_run_forked = tasks.run_forked

    async def measured(*args: Any, **kwargs: Any) -> Any:
        result = await real_run_forked(*args, **kwargs)
        samples.append((len(samples) + 1, rss_mb()))
        if len(samples) % 50 == 0:  # progress on stderr, in case the run is cut short
            print(f"job {len(samples)}: {samples[-1][1]:.1f} MB", file=sys.stderr, flush=True)
        return result

    tasks.crawl_args, tasks.run_forked = stand_in, measured  # type: ignore[assignment]
    async with app.open_async():
        for n in range(jobs):
            await tasks.enqueue(app, f"shop{n}.test", 0)
        await app.run_worker_async(
            queues=[CRAWL_QUEUE], concurrency=concurrency, wait=False, install_signal_handlers=False
        )
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_pg_database(f"actiondex_rss{os.getpid()}") as url,
    ):
        samples = asyncio.run(run(url, Path(tmp), args.jobs, args.concurrency))
    seconds = time.monotonic() - started
    assert len(samples) == args.jobs, f"{len(samples)} of {args.jobs} jobs ran"
    base = samples[0][1]
    marks = sorted({1, 10, 50, *range(100, args.jobs + 1, 100), args.jobs})
    print(
        f"worker RSS over {args.jobs} crawl jobs (concurrency {args.concurrency}, "
        f"{seconds:.0f} s in all)"
    )
    print("after job | RSS MB | vs job 1")
    print("--- | --- | ---")
    for n, mb in samples:
        if n in marks:
            label = f"{n} (baseline)" if n == 1 else str(n)
            print(f"{label} | {mb:.1f} | {mb - base:+.1f}")
    tail = [mb for n, mb in samples if n > args.jobs // 2]
    print(
        f"second half: min {min(tail):.1f}, max {max(tail):.1f} MB; "
        f"growth from job 100 to the last: {samples[-1][1] - samples[99][1]:+.1f} MB"
        if args.jobs >= 100
        else ""
    )


if __name__ == "__main__":
    main()

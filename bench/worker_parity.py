"""Two `actiondex worker`s against one `actiondex crawl` process recrawling the same due sites
(issue 23.2: the workers within 1.25x of the one process), in one run, alternating.

    .venv/bin/python -m bench.worker_parity [--sites 150] [--rounds 2] [--workers 2]
        [--worker-args "--concurrency 128 --batch 64"] [--old] [--base DIR]

N loopback sites as bench/scrapy_parity.py serves them (an agent-actions manifest and a home
page with a JSON-LD SearchAction), a fresh PostgreSQL database, every site crawled once first.
Then each round makes every site due and recrawls it: `actiondex crawl --due --no-index` in one
process (the baseline: seconds from start to exit), and `actiondex schedule` with K workers,
started and warm before the sites become due (seconds from then until every site is recrawled;
the scheduler ticks every second). Both at the default politeness (1 s between requests to one
host). Machine CPU seconds: what the whole machine spent busy over the timed span (/proc/stat:
the web and PostgreSQL included; a worker's crawl children are nobody's waited children).
``--old`` adds a row with the workers as they were before batching (`--concurrency 2 --batch
1`: one child per site, two at once). ``--base DIR`` (another checkout, e.g. a worktree of
main) adds both runs of that code to each round, its processes and their children importing DIR
first (PYTHONPATH), on the same store and sites.
"""

from __future__ import annotations

import argparse
import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.fleet import baseline_mean, cells, cluster, fleet, one_process
from bench.scrapy_parity import build_web

OLD = ["--concurrency", "2", "--batch", "1"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-args", default="", help="extra `actiondex worker` arguments")
    parser.add_argument("--old", action="store_true", help="also the one-child-per-site workers")
    parser.add_argument("--base", type=Path, help="another checkout to run beside this one")
    args = parser.parse_args()
    extra = shlex.split(args.worker_args)
    label = f"{args.workers} workers {' '.join(extra) or '(defaults)'}"
    rows: list[tuple[str, dict[str, Any]]] = []
    with build_web(args.sites) as web, fleet(web, f"bench_workers{os.getpid()}") as f:
        first = one_process(f)  # the first crawl: every path probed; not a row
        for n in range(1, args.rounds + 1):
            runs = [
                (f"one `actiondex crawl --due` process, round {n} (baseline)", f, one_process),
                (f"{label}, round {n}", f, lambda g: cluster(g, args.workers, extra)),
            ]
            if args.base is not None:
                at = replace(f, env={**f.env, "PYTHONPATH": str(args.base)})
                runs += [
                    (f"one crawl --due process at {args.base}, round {n}", at, one_process),
                    (f"{label} at {args.base}, round {n}", at, runs[1][2]),
                ]
            for name, where, run in runs if n % 2 else runs[::-1]:
                rows.append((name, run(where)))
            if args.old and n == 1:
                rows.append(
                    (
                        f"{args.workers} workers {' '.join(OLD)} (before)",
                        cluster(f, args.workers, OLD),
                    )
                )
    _print(rows, args.sites, first)


def _print(rows: list[tuple[str, dict[str, Any]]], sites: int, first: dict[str, Any]) -> None:
    mean = baseline_mean(rows)
    print(
        f"worker parity: {sites} loopback sites recrawled when due, PostgreSQL, 1 s per host; "
        f"first crawl {first['requests'] / sites:.1f} requests a site; {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f} at the end"
    )
    print(
        "| run | seconds | machine CPU seconds | sites/hour | requests a site | peak worker RSS MB "
        "| peak worker+children PSS MB | vs the baseline mean |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, row in rows:
        print(f"| {label} | {cells(row, sites)} | {row['seconds'] / mean:.2f}x |")


if __name__ == "__main__":
    main()

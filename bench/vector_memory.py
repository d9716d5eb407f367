"""The vector index's memory at scale (issue 24: API RSS at 1M actions): what a process that
searches keeps for the site stage by meaning, this tree beside another checkout in one run.

    .venv/bin/python -m bench.vector_memory [--actions 1000000] [--per-site 20] [--base DIR]

Each tree runs in a fresh interpreter of its own (PYTHONPATH=tree): a ``VectorIndex`` (sites
only, as `serve` keeps it by default) follows a store of ``--actions`` synthetic actions in
sites of ``--per-site``, whose rows its own ``read_sites`` would return (seeded random 4-bit
steps and 24-character ids, made as the store's reader makes them: nothing else is stubbed but
the store's two queries); then one per cent of the sites change and it follows again; then 200
requests search it. Printed per tree: the process's RSS grown by the first follow (after a
collection), each follow's seconds, and a search's p50 / p99 ms. ``--base DIR``: a checkout of
the code before (``git worktree add /tmp/base <commit>``), measured first as the baseline row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import gc, json, sys, time, zlib
import numpy as np
from registry.index import vector_index as vi
from registry.index.changes import Changes
from registry.index.vector_rows import SiteRows

actions, per_site = int(sys.argv[1]), int(sys.argv[2])
hosts = [f"site{n}.example" for n in range(actions // per_site)]
version = {"n": 1}

def rss():
    gc.collect()
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

def rows(wanted, model):
    out = {}
    for host in wanted:
        seed = zlib.crc32(f"{host} {version['n']}".encode())
        rng = np.random.default_rng(seed)
        vector = rng.normal(size=model.kept_dims).astype(np.float32)
        out[host] = SiteRows(
            [f"{seed:08x}{host[4:]:>08}{n:08x}"[:24] for n in range(per_site)],
            rng.integers(0, 256, size=(per_site, model.kept_dims // 2)).astype(np.uint8),
            vector / np.linalg.norm(vector),
        )
    return out

changed = {"hosts": hosts}
vi.read_changes = lambda session, mark: Changes(
    {h: (1, version["n"]) for h in changed["hosts"]}, version["n"], mark is None
)
vi.since = lambda session, state: state["watermark"]
vi.read_sites = lambda session, wanted, model: rows(wanted, model)

index = vi.VectorIndex(actions=False)
before = rss()
started = time.perf_counter()
index.follow(None)
first = time.perf_counter() - started
grown = rss() - before
version["n"] = 2
changed["hosts"] = hosts[:: 100]
started = time.perf_counter()
index.follow(None)
again = time.perf_counter() - started
rng = np.random.default_rng(7)
times = []
for _ in range(200):
    q = rng.normal(size=index.model.dims).astype(np.float32)
    q /= np.linalg.norm(q)
    t = time.perf_counter()
    found = index.search(q, 0, 10)
    times.append((time.perf_counter() - t) * 1000)
    assert len(found.best_of_sites) == 10
times.sort()
print(json.dumps({"actions": len(index), "grown": grown, "first": first, "again": again,
                  "p50": times[100], "p99": times[197]}))
"""


def measure(tree: Path, actions: int, per_site: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(actions), str(per_site)],
        env=env, cwd=tree, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr.strip().splitlines()[-1:]}")
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=1_000_000)
    parser.add_argument("--per-site", type=int, default=20)
    parser.add_argument("--base", type=Path, help="a checkout of the code before: the baseline")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    trees = [("before (--base)", args.base.resolve())] if args.base else []
    trees.append(("this tree", here))
    print(f"vector index, site stage: {args.actions:,} actions in sites of {args.per_site}")
    print("| tree | actions | RSS grown MB | first follow s | 1% changed, follow s | "
          "search p50 / p99 ms |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for label, tree in trees:
        r = measure(tree, args.actions, args.per_site)
        print(
            f"| {label} | {r['actions']:,} | {r['grown']:.0f} | {r['first']:.1f} | "
            f"{r['again']:.2f} | {r['p50']:.2f} / {r['p99']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()

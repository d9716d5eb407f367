"""The vector index's search (registry.index.nearest) at scale: time and recall against exact.

    .venv/bin/python -m bench.vector_bench [--rows 100000 1000000] [--queries 200]

Rows are the stored (4-bit) WordLlama vectors of synthetic actions (bench.synthetic): up to
100k embedded, more made by adding noise to those (each copy's steps moved by +-1 at random).
For each size: the search GET /find uses (sign bits, then int8 steps of the closest), and the
baseline row, every row scored by its int8 steps (exact), in the same run; and, when the
``usearch`` package is installed (the ``bench`` extra), its HNSW graph over the same int8
steps (cosine, M CONNECTIVITY, one row per search depth in DEPTHS, one thread a query) with
its build time. recall@50 is the share of the exact top 50 a search keeps. Memory: the
arrays the index holds; for the graph, what building it added to the process's RSS.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from bench.synthetic import manifests, queries
from registry.index import vectors
from registry.index.nearest import Matrix

K = 50
CONNECTIVITY, DEPTHS = 16, (64, 128, 256)  # usearch's graph: M, and the ef values tried


def rows(n: int) -> np.ndarray:
    base = min(n, 100_000)
    texts = [f"{a.title} {a.description} {m.site_name}" for m in manifests(base) for a in m.actions]
    steps = np.stack([_steps(t) for t in texts])
    if n <= base:
        return steps
    rng = np.random.default_rng(5)
    more = steps[rng.integers(0, base, n - base)]
    noise = rng.integers(-1, 2, more.shape).astype(np.int8)
    return np.concatenate([steps, np.clip(more + noise, -7, 7).astype(np.int8)])


def _steps(text: str) -> np.ndarray:
    model = vectors.active()  # the steps the vector index keeps of each stored vector
    packed = model.kept(vectors.stored(text) or bytes(model.stored_bytes))
    return vectors.unpacked(packed, 1)[0].astype(np.int8)


def _ms(search: Callable[[np.ndarray], np.ndarray], qs: list) -> tuple[list, list[float]]:
    """(each query's found rows, each query's time in ms)."""
    found, times = [], []
    for q in qs:
        t = time.perf_counter()
        found.append(search(q))
        times.append((time.perf_counter() - t) * 1000)
    return found, times


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _graphs(
    steps: np.ndarray,
) -> list[tuple[str, Callable[[np.ndarray], np.ndarray], float, float]]:
    """usearch's HNSW graph over the same int8 steps (cosine), one row per search depth:
    (label, search, build seconds, MB the graph added to the process)."""
    try:
        from usearch.index import Index
    except ImportError:
        print("usearch not installed: its rows skipped (pip install usearch)")
        return []
    before, t = _rss_mb(), time.perf_counter()
    graph = Index(ndim=steps.shape[1], metric="cos", dtype="i8", connectivity=CONNECTIVITY)
    graph.add(np.arange(len(steps)), steps)
    built, mb = time.perf_counter() - t, max(_rss_mb() - before, graph.memory_usage / 1e6)
    out = []
    for depth in DEPTHS:

        def search(q: np.ndarray, depth: int = depth) -> np.ndarray:
            graph.expansion_search = depth
            return np.asarray(graph.search(q, K, threads=1).keys)

        out.append((f"usearch M{CONNECTIVITY} ef{depth}", search, built, mb))
    return out


def _exact(matrix: Matrix, q: np.ndarray) -> np.ndarray:
    return np.argpartition(-matrix.cosines(q), K)[:K]


def _prefiltered(matrix: Matrix, q: np.ndarray) -> np.ndarray:
    return matrix.nearest(q, K)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    model = vectors.active()
    qs = [
        model.kept_query(vectors.query(f"I would like to {q} for my family"))
        for q in queries(args.queries)
    ]
    print(
        f"{'rows':>10} {'search':<22}{'p50 ms':>8}{'p99 ms':>8}{'recall@50':>10}{'MB':>7}"
        f"{'build s':>9}"
    )
    for n in args.rows:
        steps = rows(n)
        t = time.perf_counter()
        matrix = Matrix.of(steps)
        built = time.perf_counter() - t
        mb = (matrix.steps.nbytes + matrix.bits.nbytes + matrix.norms.nbytes) / 1e6
        exact, exact_ms = _ms(functools.partial(_exact, matrix), qs)
        engines = [
            ("every row (baseline)", functools.partial(_exact, matrix), built, mb),
            ("bits, then int8 steps", functools.partial(_prefiltered, matrix), built, mb),
            *_graphs(steps),
        ]
        for label, search, secs, size in engines:
            found, times = _ms(search, qs) if label != engines[0][0] else (exact, exact_ms)
            recall = statistics.fmean(
                len(set(f.tolist()) & set(e.tolist())) / K
                for f, e in zip(found, exact, strict=True)
            )
            times.sort()
            p99 = times[int(len(times) * 0.99)]
            print(
                f"{n:>10,} {label:<22}{statistics.median(times):>8.2f}{p99:>8.2f}{recall:>10.3f}"
                f"{size:>7.0f}{secs:>9.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""The vector index's search (registry.index.nearest) at scale: time and recall against exact.

    .venv/bin/python -m bench.vector_bench [--rows 100000 1000000] [--queries 200]

Rows are the stored (4-bit) WordLlama vectors of synthetic actions (bench.synthetic): up to
100k embedded, more made by adding noise to those (each copy's steps moved by +-1 at random).
For each size: the search GET /find uses (sign bits, then int8 steps of the closest), and the
baseline row, every row scored by its int8 steps (exact), in the same run; recall@50 is the
share of the exact top 50 the search keeps. Memory: the arrays the index holds.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from bench.synthetic import manifests, queries
from registry.index import vectors
from registry.index.nearest import Matrix

K = 50


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
    packed = vectors.stored(text) or bytes(vectors.active().stored_bytes)
    return vectors.unpacked(packed, 1)[0].astype(np.int8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    qs = [vectors.query(f"I would like to {q} for my family") for q in queries(args.queries)]
    print(f"{'rows':>10} {'search':<22}{'p50 ms':>8}{'p99 ms':>8}{'recall@50':>10}{'MB':>7}")
    for n in args.rows:
        matrix = Matrix.of(rows(n))
        mb = (matrix.steps.nbytes + matrix.bits.nbytes + matrix.norms.nbytes) / 1e6
        fast, exact, recall = [], [], []
        for q in qs:
            t = time.perf_counter()
            found, _ = matrix.nearest(q, K)
            fast.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            scores = matrix.cosines(q)
            best = np.argpartition(-scores, K)[:K]
            exact.append((time.perf_counter() - t) * 1000)
            recall.append(len(set(found.tolist()) & set(best.tolist())) / K)
        for label, times, kept in (
            ("bits, then int8 steps", fast, f"{statistics.fmean(recall):.3f}"),
            ("every row (baseline)", exact, "1"),
        ):
            times.sort()
            p99 = times[int(len(times) * 0.99)]
            print(
                f"{n:>10,} {label:<22}{statistics.median(times):>8.2f}{p99:>8.2f}{kept:>10}"
                f"{mb:>7.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Exact nearest-neighbour search over quantised vectors, in numpy (no index library).

Each row is kept twice, small: its signs as bits (``dims / 8`` bytes: 8 for WordLlama's 64
dims) and its 4-bit steps widened to int8 (``dims`` bytes), with the row's norm. A search
over many rows first counts, for every row, the bits it shares with the query's signs (one
XOR and one popcount over a few MB), keeps the ``PREFILTER`` x k rows that share the most,
and scores only those by their int8 steps (cosine, as registry.index.vectors compares).
Below ``EXACT_ROWS`` rows every row is scored by its steps. At 1M WordLlama rows that is
72 MB, and the bits pass reads 8 MB a query (bench/vector_bench.py measures it, with how
many of the exact top k the prefilter keeps).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EXACT_ROWS = 20_000  # fewer rows than this: score every row by its steps
PREFILTER = 40  # rows kept by the bits pass, per row asked for
CHUNK = 65_536  # rows widened to float32 at a time for their norms (16 MB at 64 dims)


def signs(rows: np.ndarray) -> np.ndarray:
    """Each row's signs (component > 0) packed into 64-bit words: (n, dims / 64) uint64
    (both models' dims are a multiple of 64)."""
    return np.ascontiguousarray(np.packbits(rows > 0, axis=1)).view(np.uint64)


@dataclass
class Matrix:
    """Rows of one model's vectors: int8 steps, their norms and their sign bits."""

    steps: np.ndarray  # (n, dims) int8
    norms: np.ndarray  # (n,) float32; 1 for an all-zero row (its cosine is 0)
    bits: np.ndarray  # (n, dims / 64) uint64

    @classmethod
    def empty(cls, dims: int) -> Matrix:
        return cls(
            np.zeros((0, dims), np.int8),
            np.zeros(0, np.float32),
            np.zeros((0, dims // 64), np.uint64),
        )

    @classmethod
    def of(cls, steps: np.ndarray) -> Matrix:
        norms = np.empty(len(steps), np.float32)
        for start in range(0, len(steps), CHUNK):  # not a float copy of every row at once
            part = steps[start : start + CHUNK].astype(np.float32)
            norms[start : start + CHUNK] = np.linalg.norm(part, axis=1)
        return cls(steps, np.where(norms > 0, norms, 1.0).astype(np.float32), signs(steps))

    def __len__(self) -> int:
        return len(self.norms)

    def cosines(self, query: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Cosine of the unit vector ``query`` with ``rows`` (default: every row)."""
        steps, norms = (
            (self.steps, self.norms) if rows is None else (self.steps[rows], self.norms[rows])
        )
        out: np.ndarray = (steps @ query) / norms
        return out

    def nearest(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(row numbers, cosines) of the ``k`` rows nearest ``query``, nearest first."""
        n = len(self)
        if n == 0 or k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        rows = None if n < EXACT_ROWS else self._prefiltered(query, k * PREFILTER)
        scores = self.cosines(query, rows)
        top = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        found = top if rows is None else rows[top]
        return found.astype(np.int64), scores[top].astype(np.float32)

    def _prefiltered(self, query: np.ndarray, keep: int) -> np.ndarray:
        """The rows whose sign bits differ least from the query's: at least ``keep`` of them
        (all at the cut-off distance), found by a histogram of distances, not a sort."""
        mine = signs(query[None, :])[0]
        distance = np.bitwise_count(self.bits ^ mine).sum(axis=1, dtype=np.int32)
        counts = np.bincount(distance, minlength=self.bits.shape[1] * 64 + 1)
        cut = int(np.searchsorted(np.cumsum(counts), keep))
        return np.flatnonzero(distance <= cut)

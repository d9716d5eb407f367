"""Exact nearest-neighbour search over quantised vectors, in numpy (no index library).

Each row is kept twice, small: its signs as bits (``dims / 8`` bytes: 8 for WordLlama's 64
dims) and its steps, with the row's norm: an action's 4-bit steps packed two to a byte as they
are stored (``dims / 2`` bytes), a site's int8 steps (``dims`` bytes). A search over many rows
first counts, for every row, the bits it shares with the query's signs (one XOR and one
popcount over a few MB), keeps the ``PREFILTER`` x k rows that share the most, and scores only
those by their steps, widened to float32 for it (cosine, as registry.index.vectors compares).
Below ``EXACT_ROWS`` rows every row is scored by its steps. At 1M WordLlama rows that is
44 MB, and the bits pass reads 8 MB a query (bench/vector_bench.py measures it, with how
many of the exact top k the prefilter keeps).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EXACT_ROWS = 20_000  # fewer rows than this: score every row by its steps
PREFILTER = 40  # rows kept by the bits pass, per row asked for
CHUNK = 65_536  # rows widened to float32 at a time for their norms (16 MB at 64 dims)
LEVELS = 7  # a packed step is a nibble of 1..15 for -7..7 (registry.index.vectors)


def signs(rows: np.ndarray) -> np.ndarray:
    """Each row's signs (component > 0) packed into 64-bit words: (n, dims / 64) uint64
    (both models' dims are a multiple of 64)."""
    return np.ascontiguousarray(np.packbits(rows > 0, axis=1)).view(np.uint64)


def widened(steps: np.ndarray) -> np.ndarray:
    """Rows of steps as float32: int8 ones as they are, packed ones (uint8, two 4-bit steps a
    byte, the high nibble first) unpacked."""
    if steps.dtype != np.uint8:
        return steps.astype(np.float32)
    rows = np.empty((len(steps), 2 * steps.shape[1]), np.float32)
    rows[:, 0::2] = steps >> 4
    rows[:, 1::2] = steps & 15
    rows -= LEVELS + 1
    return rows


@dataclass
class Matrix:
    """Rows of one model's vectors: their steps (int8, or 4-bit packed in uint8), their norms
    and their sign bits."""

    steps: np.ndarray  # (n, dims) int8, or (n, dims / 2) uint8 packed
    norms: np.ndarray  # (n,) float32; 1 for an all-zero row (its cosine is 0)
    bits: np.ndarray  # (n, dims / 64) uint64

    @classmethod
    def of(cls, steps: np.ndarray) -> Matrix:
        norms = np.empty(len(steps), np.float32)
        bits = []
        for start in range(0, len(steps), CHUNK):  # not a float copy of every row at once
            part = widened(steps[start : start + CHUNK])
            norms[start : start + CHUNK] = np.linalg.norm(part, axis=1)
            bits.append(signs(part))
        dims = 2 * steps.shape[1] if steps.dtype == np.uint8 else steps.shape[1]
        joined = np.concatenate(bits) if bits else np.zeros((0, dims // 64), np.uint64)
        return cls(steps, np.where(norms > 0, norms, 1.0).astype(np.float32), joined)

    def __len__(self) -> int:
        return len(self.norms)

    def cosines(self, query: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Cosine of the unit vector ``query`` with ``rows`` (default: every row)."""
        steps, norms = (
            (self.steps, self.norms) if rows is None else (self.steps[rows], self.norms[rows])
        )
        out: np.ndarray = (widened(steps) @ query) / norms
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

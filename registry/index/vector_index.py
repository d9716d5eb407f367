"""The vector index: every action's meaning vector and every site's, searched by meaning
(registry.index.nearest) so a request that shares no word with an action can still find it.

Derived from the store and disposable, like the text index: each process that searches keeps
it in memory, filled on its first sync from its file beside the text index (registry.index.
vector_cache) plus the sites changed since, or else from the store, and following the store's
clock with a watermark of its own (registry.index.changes), so it follows every store change
whichever process indexed it. A changed site's rows are read again (each action's stored vector, the
last field of its stored ``index_fields``: a few hundred characters a row are read); a full
read drops the sites gone from the store. Rows stored under another INDEX_VERSION have their
vector worked out as a build does (registry.index.vector_rows).

A site's vector is the mean of its actions' (each already holds the site's name and opening
words) plus the vector of its own name and description under WordLlama (cheap to embed; under
e5 its actions' alone), so "which site can do this" is answered by what the whole site does.

Two uses: the first stage by meaning (ACTIONDEX_MEANING_FIRST_STAGE) searches every action's
vector and every site's; the site stage (ACTIONDEX_MEANING_SITES, on by default) only the
sites' (about one for twenty actions), each then answering with its action nearest the request,
so "which site can do this" is asked of every site at a twentieth of the scan.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy.orm import Session

from registry.index import vector_cache, vectors
from registry.index.changes import read_changes, since
from registry.index.nearest import Matrix
from registry.index.vector_rows import Table, read_sites


@dataclass
class Found:
    """What the vector index answers for one request."""

    ids: list[str] = field(default_factory=list)  # nearest actions, nearest first
    cosines: dict[str, float] = field(default_factory=dict)  # action id -> its cosine
    best_of_sites: list[str] = field(default_factory=list)  # nearest sites' nearest action


class VectorIndex:
    """Thread-safe: a follow builds new arrays and swaps them in; searches read a snapshot.
    The snapshot's arrays are the only copy of the rows: a follow keeps the rows of the sites
    it did not read again (their norms and sign bits too) and joins the ones it read."""

    def __init__(self, actions: bool = True, cache: Path | None = None) -> None:
        self.model = vectors.active()
        self.actions = actions  # the actions' rows are searched too, not only the sites'
        self.cache = cache  # the folder of the rows' file on disk (registry.index.vector_cache)
        self._unsaved = 0  # sites read from the store since the rows were last saved

        self._lock = threading.Lock()
        self.watermark: int | None = None
        self._snapshot = _Snapshot.of(Table.empty(self.model.kept_dims))

    def __len__(self) -> int:
        return len(self._snapshot.table.ids)

    def follow(self, session: Session, *, full: bool = False) -> int:
        """Read the sites changed since the watermark (all of them when ``full`` or on the
        first call); answers how many sites were read again."""
        with self._lock:
            if self.watermark is None and not full and self.cache is not None:
                loaded = vector_cache.load(self.cache, self.model)
                if loaded is not None:
                    table, self.watermark = loaded
                    self._snapshot = _Snapshot.of(table)
            mark = (
                None
                if full or self.watermark is None
                else since(session, {"watermark": self.watermark})
            )
            changes = read_changes(session, mark)
            stale = sorted(
                h for h, (_, seq) in changes.sites.items() if mark is None or (seq or 0) > mark
            )
            if stale or changes.full:
                drop = set(stale)
                if changes.full:
                    drop |= set(self._snapshot.table.hosts) - changes.sites.keys()
                read = Table.of(read_sites(session, stale, self.model), self.model.kept_dims)
                self._snapshot = self._snapshot.changed(drop, read)
            self.watermark = max(changes.watermark, mark or 0)
            self._save_if_due(changes.full, len(stale))
            return len(stale)

    def _save_if_due(self, full: bool, read: int) -> None:
        """Keep the rows on disk for the next process after a full read, or once the sites
        read again since the last save reach a tenth of all (registry.index.vector_cache)."""
        table = self._snapshot.table
        self._unsaved = len(table) if full else self._unsaved + read
        due = max(vector_cache.SAVE_MIN, len(table) // vector_cache.SAVE_SHARE)
        if self.cache is None or not (full or self._unsaved >= due):
            return
        if vector_cache.save(self.cache, self.model, table, self.watermark or 0):
            self._unsaved = 0

    def search(self, query: np.ndarray, actions: int, sites: int) -> Found:
        """The ``actions`` actions nearest ``query`` (a unit vector of the model's, cut here to
        the dims the index keeps; no actions when this index searches sites only) and the
        ``sites`` sites nearest it, each with its nearest action."""
        snap = self._snapshot
        ids, starts = snap.table.ids, snap.starts
        found = Found()
        query = self.model.kept_query(query)
        if not len(snap.table) or not query.any():
            return found
        if self.actions:
            rows, cosines = snap.actions.nearest(query, actions)
            found.ids = [ids[r].decode() for r in rows]
            found.cosines = dict(zip(found.ids, map(float, cosines), strict=True))
        site_rows, _ = snap.sites.nearest(query, sites)
        for r in site_rows:
            start, end = int(starts[r]), int(starts[r + 1])
            if end > start:
                own = snap.actions.cosines(query, np.arange(start, end))
                best = int(np.argmax(own))
                found.best_of_sites.append(ids[start + best].decode())
                found.cosines.setdefault(found.best_of_sites[-1], float(own[best]))
        return found

    def site_cosines(self, query: np.ndarray, hosts: list[str]) -> dict[str, float]:
        """The cosine of ``query`` with each of ``hosts``' site vector (0 for one unknown)."""
        snap = self._snapshot
        query = self.model.kept_query(query)
        rows = [snap.host_rows.get(h, -1) for h in hosts]
        known = np.array([r for r in rows if r >= 0], np.int64)
        cosines = snap.sites.cosines(query, known) if len(known) else np.zeros(0)
        by_row = dict(zip(known.tolist(), cosines.tolist(), strict=True))
        return {h: by_row.get(r, 0.0) for h, r in zip(hosts, rows, strict=True)}


@dataclass
class _Snapshot:
    table: Table
    actions: Matrix  # its steps are the table's (one array)
    sites: Matrix
    starts: np.ndarray  # (sites + 1,) int64: site r's rows are starts[r]:starts[r + 1]
    host_rows: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, table: Table, actions: Matrix | None = None) -> _Snapshot:
        return cls(
            table,
            actions if actions is not None else Matrix.of(table.steps),
            Matrix.of(_steps(table.vectors)),
            np.concatenate([np.zeros(1, np.int64), np.cumsum(table.counts, dtype=np.int64)]),
            {h: i for i, h in enumerate(table.hosts)},
        )

    def changed(self, drop: set[str], read: Table) -> _Snapshot:
        """Without the sites ``drop`` names, with the rows ``read``."""
        kept, rows = self.table.kept(drop)
        table = kept.joined(read)
        norms, bits = self.actions.norms, self.actions.bits
        if kept is not self.table:
            norms, bits = norms[rows], bits[rows]
        if len(read):
            new = Matrix.of(read.steps)
            norms, bits = np.concatenate([norms, new.norms]), np.concatenate([bits, new.bits])
        return _Snapshot.of(table, Matrix(table.steps, norms, bits))


def _steps(vectors: np.ndarray) -> np.ndarray:
    """Unit vectors, each in int8 steps of -127..127 (a site's vector is not stored 4-bit)."""
    top = np.abs(vectors).max(axis=1, keepdims=True) if vectors.size else vectors[:, :1]
    scale = np.divide(127, top, out=np.zeros_like(top), where=top > 0)
    steps: np.ndarray = np.rint(vectors * scale).astype(np.int8)
    return steps

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
from registry.index.vector_rows import SiteRows, read_sites


@dataclass
class Found:
    """What the vector index answers for one request."""

    ids: list[str] = field(default_factory=list)  # nearest actions, nearest first
    cosines: dict[str, float] = field(default_factory=dict)  # action id -> its cosine
    best_of_sites: list[str] = field(default_factory=list)  # nearest sites' nearest action


class VectorIndex:
    """Thread-safe: a follow builds new arrays and swaps them in; searches read a snapshot."""

    def __init__(self, actions: bool = True, cache: Path | None = None) -> None:
        self.model = vectors.active()
        self.actions = actions  # the actions' rows are searched too, not only the sites'
        self.cache = cache  # the folder of the rows' file on disk (registry.index.vector_cache)
        self._unsaved = 0  # sites read from the store since the rows were last saved

        self._sites: dict[str, SiteRows] = {}
        self._lock = threading.Lock()
        self.watermark: int | None = None
        self._snapshot = _Snapshot.of({}, self.model.dims)

    def __len__(self) -> int:
        return len(self._snapshot.ids)

    def follow(self, session: Session, *, full: bool = False) -> int:
        """Read the sites changed since the watermark (all of them when ``full`` or on the
        first call); answers how many sites were read again."""
        with self._lock:
            if self.watermark is None and not full and self.cache is not None:
                loaded = vector_cache.load(self.cache, self.model)
                if loaded is not None:
                    self._sites, self.watermark = loaded
                    self._snapshot = _Snapshot.of(self._sites, self.model.dims)
            mark = (
                None
                if full or self.watermark is None
                else since(session, {"watermark": self.watermark})
            )
            changes = read_changes(session, mark)
            stale = sorted(
                h for h, (_, seq) in changes.sites.items() if mark is None or (seq or 0) > mark
            )
            if changes.full:
                for host in self._sites.keys() - changes.sites.keys():
                    del self._sites[host]
            if stale or changes.full:
                for host in stale:
                    self._sites.pop(host, None)
                self._sites.update(read_sites(session, stale, self.model))
                self._snapshot = _Snapshot.of(self._sites, self.model.dims)
            self.watermark = max(changes.watermark, mark or 0)
            self._save_if_due(changes.full, len(stale))
            return len(stale)

    def _save_if_due(self, full: bool, read: int) -> None:
        """Keep the rows on disk for the next process after a full read, or once the sites
        read again since the last save reach a tenth of all (registry.index.vector_cache)."""
        self._unsaved = len(self._sites) if full else self._unsaved + read
        due = max(vector_cache.SAVE_MIN, len(self._sites) // vector_cache.SAVE_SHARE)
        if self.cache is None or not (full or self._unsaved >= due):
            return
        if vector_cache.save(self.cache, self.model, self._sites, self.watermark or 0):
            self._unsaved = 0

    def search(self, query: np.ndarray, actions: int, sites: int) -> Found:
        """The ``actions`` actions nearest ``query`` (a unit vector; none when this index
        searches sites only) and the ``sites`` sites nearest it, each with its nearest action."""
        snap = self._snapshot
        found = Found()
        if not len(snap.ids) or not query.any():
            return found
        if self.actions:
            rows, cosines = snap.actions.nearest(query, actions)
            found.ids = [snap.ids[r] for r in rows]
            found.cosines = dict(zip(found.ids, map(float, cosines), strict=True))
        site_rows, _ = snap.sites.nearest(query, sites)
        for r in site_rows:
            start, end = snap.spans[r]
            if end > start:
                own = snap.actions.cosines(query, np.arange(start, end))
                best = int(np.argmax(own))
                found.best_of_sites.append(snap.ids[start + best])
                found.cosines.setdefault(snap.ids[start + best], float(own[best]))
        return found

    def site_cosines(self, query: np.ndarray, hosts: list[str]) -> dict[str, float]:
        """The cosine of ``query`` with each of ``hosts``' site vector (0 for one unknown)."""
        snap = self._snapshot
        rows = [snap.host_rows.get(h, -1) for h in hosts]
        known = np.array([r for r in rows if r >= 0], np.int64)
        cosines = snap.sites.cosines(query, known) if len(known) else np.zeros(0)
        by_row = dict(zip(known.tolist(), cosines.tolist(), strict=True))
        return {h: by_row.get(r, 0.0) for h, r in zip(hosts, rows, strict=True)}


@dataclass
class _Snapshot:
    ids: list[str]
    actions: Matrix
    hosts: list[str]
    spans: list[tuple[int, int]]  # each site's rows in ``actions``
    sites: Matrix
    host_rows: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, sites: dict[str, SiteRows], dims: int) -> _Snapshot:
        ids: list[str] = []
        spans, hosts = [], list(sites)
        for host in hosts:
            spans.append((len(ids), len(ids) + len(sites[host].ids)))
            ids += sites[host].ids
        steps = [sites[h].steps for h in hosts]
        actions = Matrix.of(np.concatenate(steps) if steps else np.zeros((0, dims), np.int8))
        site_steps = [_steps(sites[h].vector) for h in hosts]
        site_matrix = Matrix.of(np.stack(site_steps) if hosts else np.zeros((0, dims), np.int8))
        return cls(ids, actions, hosts, spans, site_matrix, {h: i for i, h in enumerate(hosts)})


def _steps(vector: np.ndarray) -> np.ndarray:
    """A unit vector in int8 steps of -127..127 (a site's vector is not stored 4-bit)."""
    top = float(np.abs(vector).max()) if vector.size else 0.0
    return np.rint(vector * (127 / top)).astype(np.int8) if top else vector.astype(np.int8)

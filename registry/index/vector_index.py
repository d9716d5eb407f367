"""The vector index: every action's meaning vector and every site's, searched by meaning
(registry.index.nearest) so a request that shares no word with an action can still find it.

Derived from the store and disposable, like the text index: each process that searches keeps
it in memory, filled from the store on its first sync and following the store's clock with a
watermark of its own (registry.index.changes), so it follows every store change whichever
process indexed it. A changed site's rows are read again (each action's stored vector, the
last field of its stored ``index_fields``: a few hundred characters a row are read); a full
read drops the sites gone from the store. Rows stored under another INDEX_VERSION have no
current vector and are left to BM25 until the next build works them out.

A site's vector is the mean of its actions' (each already holds the site's name and opening
words) plus the vector of its own name and description under WordLlama (cheap to embed; under
e5 its actions' alone), so "which site can do this" is answered by what the whole site does.
"""

from __future__ import annotations

import json
import threading
from base64 import b64decode
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Site
from registry.index import vectors
from registry.index.changes import read_changes, since
from registry.index.documents import SiteInfo
from registry.index.load import stale_action_parts
from registry.index.nearest import Matrix
from registry.index.parts import INDEX_VERSION, site_words

SITE_BATCH = 500
# The stored vector is the last field of index_fields: '"vec":"<base64>"}'. Its tail is read.
TAIL_CHARS = 400
VEC_KEY = '"vec":"'


@dataclass
class SiteRows:
    ids: list[str]
    steps: np.ndarray  # (n, dims) int8: the 4-bit steps of registry.index.vectors
    vector: np.ndarray  # the site's unit vector (float32)


@dataclass
class Found:
    """What the vector index answers for one request."""

    ids: list[str] = field(default_factory=list)  # nearest actions, nearest first
    cosines: dict[str, float] = field(default_factory=dict)  # action id -> its cosine
    best_of_sites: list[str] = field(default_factory=list)  # nearest sites' nearest action


class VectorIndex:
    """Thread-safe: a follow builds new arrays and swaps them in; searches read a snapshot."""

    def __init__(self) -> None:
        self.model = vectors.active()
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
                self._sites.update(_read_sites(session, stale, self.model))
                self._snapshot = _Snapshot.of(self._sites, self.model.dims)
            self.watermark = max(changes.watermark, mark or 0)
            return len(stale)

    def search(self, query: np.ndarray, actions: int, sites: int) -> Found:
        """The ``actions`` actions nearest ``query`` (a unit vector) and the ``sites`` sites
        nearest it, each with its nearest action."""
        snap = self._snapshot
        found = Found()
        if not len(snap.ids) or not query.any():
            return found
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


def _read_sites(session: Session, hosts: list[str], model: vectors.Model) -> dict[str, SiteRows]:
    out: dict[str, SiteRows] = {}
    postgres = session.bind is not None and session.bind.dialect.name == "postgresql"
    tail = (
        func.right(ActionRow.index_fields, TAIL_CHARS)
        if postgres
        else func.substr(ActionRow.index_fields, -TAIL_CHARS)
    )
    for start in range(0, len(hosts), SITE_BATCH):
        chunk = hosts[start : start + SITE_BATCH]
        sites = session.execute(
            select(Site.id, Site.host, Site.name, Site.description, Site.about).where(
                Site.host.in_(chunk)
            )
        ).all()
        rows: dict[int, list[tuple[str, bytes]]] = {site.id: [] for site in sites}
        query = (
            select(ActionRow.site_id, ActionRow.id, ActionRow.index_version, tail)
            .where(ActionRow.site_id.in_(rows))
            .order_by(ActionRow.site_id, ActionRow.name)
        )
        stale = False
        for site_id, action_id, version, text in session.execute(query):
            packed = _vector_of(text or "") if version == INDEX_VERSION else b""
            stale |= version != INDEX_VERSION
            if len(packed) == model.stored_bytes:
                rows[site_id].append((action_id, packed))
        if stale:  # stored under another version (or none): worked out as a build does
            infos = {s.id: SiteInfo.of(session.get_one(Site, s.id)) for s in sites}
            for site_id, _, parts in stale_action_parts(session.connection(), infos):
                packed = _vector_of(parts.index_fields)
                if len(packed) == model.stored_bytes:
                    rows[site_id].append((_id_of(parts.index_fields), packed))
        for site in sites:
            mine = rows[site.id]
            steps = (
                vectors.unpacked(b"".join(v for _, v in mine), len(mine)).astype(np.int8)
                if mine
                else np.zeros((0, model.dims), np.int8)
            )
            about = site_words(site.name, site.description, site.about)
            out[site.host] = SiteRows(
                [i for i, _ in mine], steps, _site_vector(steps, about, model)
            )
    return out


def _vector_of(tail: str) -> bytes:
    at = tail.rfind(VEC_KEY)
    if at < 0:
        return b""
    end = tail.find('"', at + len(VEC_KEY))
    try:
        return b64decode(tail[at + len(VEC_KEY) : end])
    except ValueError:
        return b""


def _id_of(fields: str) -> str:
    return str(json.loads(fields)["id"])


def _site_vector(steps: np.ndarray, about: str, model: vectors.Model) -> np.ndarray:
    total = np.zeros(model.dims, np.float32)
    if len(steps):
        rows = steps.astype(np.float32)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        total += _unit(rows.mean(axis=0))
    if about and model.name == "wordllama":
        total += model.passage(about)
    return _unit(total)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)

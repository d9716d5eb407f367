"""Reading the vector index's rows from the store (registry.index.vector_index): each action's
stored vector (the last field of its stored ``index_fields``: only that tail is read, a few
hundred characters a row) and each site's vector, the mean of its actions' (each already holds
the site's name and opening words) plus, under WordLlama (cheap to embed), the vector of its own
name and description. Rows stored under another INDEX_VERSION are worked out as a build does.
"""

from __future__ import annotations

import json
from base64 import b64decode
from dataclasses import dataclass

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Site
from registry.index import vectors
from registry.index.documents import SiteInfo
from registry.index.load import stale_action_parts
from registry.index.nearest import widened
from registry.index.parts import INDEX_VERSION, site_words

SITE_BATCH = 500
# The stored vector is the last field of index_fields: '"vec":"<base64>"}'. Its tail is read.
TAIL_CHARS = 400
VEC_KEY = '"vec":"'


@dataclass
class SiteRows:
    ids: list[str]
    steps: np.ndarray  # (n, dims / 2) uint8: the 4-bit steps as stored, two to a byte
    vector: np.ndarray  # the site's unit vector (float32)


@dataclass
class Table:
    """Many sites' rows as a few arrays, sites in ``hosts``' order and each site's actions
    together: what the vector index searches and its file holds. At a million actions a row
    costs its ``dims / 2`` bytes of steps (packed as stored; widened to int8 they took twice
    that) and its id's 24 bytes; as a Python string in a list per
    site, an id cost about 80, and each site's steps were kept again beside the joined matrix
    (bench.vector_memory)."""

    hosts: list[str]
    counts: np.ndarray  # (sites,) int64: each site's rows
    ids: np.ndarray  # (rows,) bytes: each action's id, ASCII
    steps: np.ndarray  # (rows, dims / 2) uint8, packed
    vectors: np.ndarray  # (sites, dims) float32: each site's unit vector

    @classmethod
    def empty(cls, dims: int) -> Table:
        return cls(
            [],
            np.zeros(0, np.int64),
            np.zeros(0, "S1"),
            np.zeros((0, dims // 2), np.uint8),
            np.zeros((0, dims), np.float32),
        )

    @classmethod
    def of(cls, sites: dict[str, SiteRows], dims: int) -> Table:
        if not sites:
            return cls.empty(dims)
        rows = list(sites.values())
        ids = [i.encode() for site in rows for i in site.ids]
        return cls(
            list(sites),
            np.array([len(site.ids) for site in rows], np.int64),
            np.array(ids, "S") if ids else np.zeros(0, "S1"),
            np.concatenate([site.steps for site in rows]),
            np.stack([site.vector for site in rows]).astype(np.float32),
        )

    def __len__(self) -> int:
        return len(self.hosts)

    def kept(self, drop: set[str]) -> tuple[Table, np.ndarray]:
        """This table without the sites ``drop`` names, and the mask of rows kept."""
        sites = np.array([host not in drop for host in self.hosts], bool)
        rows = np.repeat(sites, self.counts)
        if sites.all():
            return self, rows
        table = Table(
            [host for host, keep in zip(self.hosts, sites.tolist(), strict=True) if keep],
            self.counts[sites],
            self.ids[rows],
            self.steps[rows],
            self.vectors[sites],
        )
        return table, rows

    def joined(self, other: Table) -> Table:
        if not len(other):
            return self
        return Table(
            self.hosts + other.hosts,
            np.concatenate([self.counts, other.counts]),
            np.concatenate([self.ids, other.ids]),
            np.concatenate([self.steps, other.steps]),
            np.concatenate([self.vectors, other.vectors]),
        )


def read_sites(session: Session, hosts: list[str], model: vectors.Model) -> dict[str, SiteRows]:
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
                rows[site_id].append((action_id, model.kept(packed)))
        if stale:  # stored under another version (or none): worked out as a build does
            infos = {s.id: SiteInfo.of(session.get_one(Site, s.id)) for s in sites}
            for site_id, _, _, parts in stale_action_parts(session.connection(), infos):
                packed = _vector_of(parts.index_fields)
                if len(packed) == model.stored_bytes:
                    rows[site_id].append((_id_of(parts.index_fields), model.kept(packed)))
        for site in sites:
            mine = rows[site.id]
            steps = np.frombuffer(b"".join(v for _, v in mine), np.uint8).reshape(
                len(mine), model.kept_dims // 2
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
    total = np.zeros(model.kept_dims, np.float32)
    if len(steps):
        rows = widened(steps)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        total += _unit(rows.mean(axis=0))
    if about and model.name == "wordllama":
        total += model.kept_query(model.passage(about))
    return _unit(total)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)

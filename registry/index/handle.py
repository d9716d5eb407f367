"""The tantivy BM25 index of actions and flows: derived from the store, disposable.

``ActionIndex.open(path)`` serves the generation ``current`` points at; ``sync(session)``
brings it up to date with the store incrementally (only sites changed since the generation's
watermark, registry.index.changes);
``ActionIndex.rebuild(path, session)`` builds a fresh generation beside it and swaps ``current``
when complete.
With ``vectors=True`` the handle also keeps the vector index (registry.index.vector_index) in
memory and each ``sync`` brings it up to date with the store too, whichever process wrote the
text index: the processes that search (serve, mcp, find) ask for it when
ACTIONDEX_MEANING_FIRST_STAGE is on (off by default), those that only write never. With
``sites=True`` alone it keeps the same rows but searches only the sites' vectors (the site
stage, ACTIONDEX_MEANING_SITES, on by default).
Readers follow the symlink: every ``searcher()`` call compares it with the open generation
(one readlink) and reopens after a swap. Commits made by this object are visible at once;
commits made by another process are picked up by tantivy's meta.json watcher within ~1 s.
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import tantivy
from sqlalchemy.orm import Session

from registry.index.changes import gone_hosts, read_changes, since, stale_hosts
from registry.index.documents import LAYOUT, SCHEMA
from registry.index.files import (
    current_target,
    generation_number,
    new_generation,
    read_state,
    remove_older,
    swap_current,
    write_state,
)
from registry.index.load import site_documents
from registry.index.parts import INDEX_VERSION
from registry.index.text import register
from registry.index.vector_index import VectorIndex
from registry.index.writer import REBUILD_HEAP, REBUILD_THREADS, collector_paused, write


@dataclass(frozen=True)
class SyncStats:
    generation: int
    sites_indexed: int = 0  # new or changed sites whose documents were (re)written
    sites_removed: int = 0
    documents: int = 0  # documents added
    took_ms: float = 0.0
    sites_read: int = 0  # site rows read from the store to find what changed
    full: bool = False  # every site was read (no watermark yet, or a reconcile)


class ActionIndex:
    """A handle on the index folder; thread-safe, cheap to query, follows ``current``."""

    def __init__(self, root: Path, vectors: bool = False, sites: bool = False) -> None:
        self.root = root
        self.vectors: VectorIndex | None = (
            VectorIndex(actions=vectors, cache=root) if vectors or sites else None
        )
        self._lock = threading.Lock()  # guards swapping the open generation
        self._write_lock = threading.Lock()  # one sync at a time per handle
        self._target: str | None = None
        self._index: tantivy.Index | None = None
        # Wall time of the last sync that succeeded: the index held every site's version as of
        # then (None: not synced by this handle yet). /metrics and /readyz report its age.
        self.synced_at: float | None = None
        self._refresh()
        if self._index is None:
            raise FileNotFoundError(f"no index generation at {root}; use ActionIndex.open")

    @classmethod
    def open(cls, path: Path | str, vectors: bool = False, sites: bool = False) -> ActionIndex:
        """Open the index at ``path``, creating an empty generation if there is none usable;
        ``vectors``: keep the vector index too (filled by the first ``sync``); ``sites``: keep
        it to search the sites' vectors only."""
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        target = current_target(root)
        if target is None or not _usable(root / target):
            folder = new_generation(root)
            tantivy.Index(SCHEMA, path=str(folder))
            write_state(folder, {"schema": INDEX_VERSION, "layout": LAYOUT})
            swap_current(root, folder)
        return cls(root, vectors, sites)

    @property
    def generation(self) -> int:
        self._refresh()
        return generation_number(self._target or "") or 0

    def searcher(self) -> tantivy.Searcher:
        """A consistent snapshot of the current generation."""
        self._refresh()
        assert self._index is not None
        return self._index.searcher()

    def count(self, kind: str = "action") -> int:
        query = tantivy.Query.term_query(SCHEMA, "kind", kind)
        result = self.searcher().search(query, 1, count=True)
        found: int | None = result.count  # type: ignore[attr-defined]  # tantivy's stub omits it
        return found or 0

    def sync(self, session: Session, *, full: bool = False) -> SyncStats:
        """Reindex the sites changed since the generation's watermark (registry.index.
        changes); ``full``: read every site, and drop the ones deleted from the store."""
        started, began = time.perf_counter(), time.time()
        self.follow_vectors(session, full=full)
        with self._write_lock:
            self._refresh()
            index, folder = self._index, self.root / (self._target or "")
            assert index is not None
            state = read_state(folder)
            mark = since(session, state)
            changes = read_changes(session, None if full else mark)
            stale, gone = stale_hosts(changes, mark, state), gone_hosts(index, changes)
            docs = 0
            if stale or gone:
                # New sites are deleted too: a crash after a commit but before the state write
                # leaves them in the index while the watermark is below them.
                docs = write(index, stale + gone, site_documents(session, stale))
                index.reload()
            watermark = max(changes.watermark, mark or 0)  # a full read may miss deleted rows
            if watermark != mark or "sites" in state:
                _save_state(folder, watermark)
            self.synced_at = began
        took = (time.perf_counter() - started) * 1000
        return SyncStats(
            self.generation, len(stale), len(gone), docs, took, len(changes.sites), changes.full
        )

    def follow_vectors(self, session: Session, *, full: bool = False) -> None:
        """Bring the vector index (if this handle keeps one) up to date with the store."""
        if self.vectors is not None:
            self.vectors.follow(session, full=full)

    @classmethod
    def rebuild(cls, path: Path | str, session: Session) -> SyncStats:
        """Build a complete new generation from the store, then swap ``current`` to it.

        The old generation keeps serving until the swap (open handles move over on their next
        query) and stays on disk until the next rebuild; a failed build is removed and leaves
        it serving.
        """
        started = time.perf_counter()
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        folder = new_generation(root)
        try:
            index = register(tantivy.Index(SCHEMA, path=str(folder)))
            changes = read_changes(session, None)
            with collector_paused():
                docs = write(
                    index,
                    [],
                    site_documents(session, sorted(changes.sites)),
                    REBUILD_HEAP,
                    REBUILD_THREADS,
                )
            _save_state(folder, changes.watermark)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        previous = current_target(root)
        swap_current(root, folder)
        remove_older(root, folder, spare=previous)
        took = (time.perf_counter() - started) * 1000
        return SyncStats(
            generation_number(folder.name) or 0,
            len(changes.sites),
            0,
            docs,
            took,
            len(changes.sites),
            True,
        )

    def _refresh(self) -> None:
        """Reopen if ``current`` moved. On any trouble, keep serving what is open."""
        target = current_target(self.root)
        if target is None or target == self._target:
            return
        with self._lock:
            if target == self._target:
                return
            try:
                index = register(tantivy.Index.open(str(self.root / target)))
            except (OSError, ValueError):
                return
            self._index, self._target = index, target


def _usable(folder: Path) -> bool:
    state = read_state(folder)
    return (
        state.get("schema") == INDEX_VERSION
        and state.get("layout") == LAYOUT
        and tantivy.Index.exists(str(folder))
    )


def _save_state(folder: Path, watermark: int) -> None:
    write_state(folder, {"schema": INDEX_VERSION, "layout": LAYOUT, "watermark": watermark})

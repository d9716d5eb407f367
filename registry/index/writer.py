"""Writing a generation of the index: one writer's all-or-nothing commit (``write``), with a
held lock reported as ``IndexBusy``, and the heap, threads and collector pause a full rebuild
uses. ``registry.index.handle`` decides what to write and when.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import tantivy

WRITER_HEAP = 64_000_000  # incremental syncs: a few sites at a time
# A full rebuild indexes everything at once: more heap means fewer, larger segments, and a
# second thread overlaps tantivy's indexing with Python building the documents.
REBUILD_HEAP, REBUILD_THREADS = 512_000_000, 2


class IndexBusy(RuntimeError):
    """Another writer (in this or another process) holds the generation's lock."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a rebuild: its millions of short-lived rows and
    strings make no cycles, yet keep setting off collections (~4% of a 1M build's CPU)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def write(
    index: tantivy.Index,
    delete_hosts: Sequence[str],
    docs: Iterable[str],
    heap: int = WRITER_HEAP,
    threads: int = 1,
) -> int:
    """Delete the hosts' documents, add ``docs``, commit; all or nothing. Returns docs added."""
    try:
        writer = index.writer(heap, threads)
    except ValueError as exc:  # tantivy reports a held lock as ValueError("...LockBusy...")
        raise IndexBusy(str(exc)) from exc
    added = 0
    try:
        for host in delete_hosts:
            writer.delete_documents_by_term("site", host)
        for doc in docs:
            writer.add_json(doc)
            added += 1
        writer.commit()
    except BaseException:
        writer.rollback()
        raise
    finally:
        writer.wait_merging_threads()  # consumes the writer and releases the lock
    return added

"""What a sync reads from the store, and the generation's state.json kept in memory.

A generation's state.json holds ``sites`` (host -> the version it indexed) and ``watermark``
(the highest store-clock number it has read, registry.clock). A sync reads only the sites
whose ``change_seq`` is above the watermark: one range scan of ``ix_sites_change_seq``,
however many sites the store holds. Since numbers are given in commit order, the highest one
read is a safe next watermark: every smaller number was committed before it and was read.

Every site is read instead (a full reconcile) when the state has no watermark (a generation
written before it existed, or a new one), when asked to, and when the store's clock is behind
the watermark (the index was built from another or a restored store). Only a full read sees
deleted site rows; nothing deletes sites in normal operation, so the API's follower reconciles
only every ``Settings.index_reconcile_seconds``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.clock import last_change
from registry.index.files import STATE, read_state, write_state
from registry.index.parts import INDEX_VERSION
from registry.models import Site


@dataclass(frozen=True)
class Changes:
    versions: dict[str, int]  # host -> version, of every site read
    watermark: int  # the highest change number read (the old watermark if none)
    full: bool  # every site was read: an indexed host missing here is gone


def since(session: Session, state: dict[str, Any]) -> int | None:
    """The watermark to read from, or None for a full read."""
    mark = state.get("watermark")
    if not isinstance(mark, int) or isinstance(mark, bool):
        return None
    return mark if last_change(session) >= mark else None


def read_changes(session: Session, after: int | None) -> Changes:
    """The sites changed after ``after`` (None: every site), in one statement (one snapshot).

    Read before the rows: the rows indexed are then at least this new, so recording these
    versions can only cause a redo, never a missed update."""
    query = select(Site.host, Site.version, Site.change_seq)
    if after is not None:
        query = query.where(Site.change_seq > after)
    versions, mark = {}, after or 0
    for host, version, seq in session.execute(query):
        versions[host] = version
        if seq is not None and seq > mark:
            mark = seq
    return Changes(versions, mark, after is None)


class States:
    """state.json as last read or written, reused while the file is unchanged: a poll that
    finds nothing new costs one stat, not parsing a host map of every site."""

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._state: dict[str, Any] = {}

    def read(self, folder: Path) -> dict[str, Any]:
        key = _key(folder)
        if key is None or key != self._key:
            self._state, self._key = read_state(folder), key
        return self._state

    def write(self, folder: Path, sites: dict[str, int], watermark: int) -> None:
        state = {"schema": INDEX_VERSION, "sites": sites, "watermark": watermark}
        self._key = None  # if the write fails half way, read the file again
        write_state(folder, state)
        self._state, self._key = state, _key(folder)


def _key(folder: Path) -> tuple[Any, ...] | None:
    # os.replace gives every write a new inode: another process's write is always noticed.
    try:
        st = os.stat(folder / STATE)
    except OSError:
        return None
    return (str(folder), st.st_ino, st.st_mtime_ns, st.st_size)

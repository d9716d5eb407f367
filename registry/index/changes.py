"""What a sync reads from the store, and what the generation remembers of it.

A generation's state.json holds ``watermark``: the highest store-clock number (registry.db.clock)
it has indexed. A sync reads only the sites whose ``change_seq`` is above it: one range scan
of ``ix_sites_change_seq``, however many sites the store holds, and state.json stays a few
bytes, so a sync's own writes do not grow with the store either. Since numbers are given in
commit order, the highest one read is a safe next watermark: every smaller number was
committed before it and was read then or earlier.

Every site is read instead (a full read) when the state has no watermark (a new generation,
or one written before the watermark, whose ``sites`` map of host -> version is then used
once, the old way), when the store's clock is behind the watermark (the index was built from
another or a restored store: everything is indexed again), and when asked to (a reconcile).
Only a full read notices deleted site rows: it compares the store's hosts with the index's
own (its ``site`` terms). Nothing deletes sites in normal operation, so the API's follower
reconciles only every ``Settings.index_reconcile_seconds``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tantivy
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.clock import last_change
from registry.db.tables import Site


@dataclass(frozen=True)
class Changes:
    sites: dict[str, tuple[int, int | None]]  # host -> (version, change_seq) of each site read
    watermark: int  # the highest change number read (the old watermark if none)
    full: bool  # every site was read: an indexed host missing here is gone


def since(session: Session, state: dict[str, Any]) -> int | None:
    """The watermark to read from, or None for a full read that indexes every site again."""
    mark = state.get("watermark")
    if not isinstance(mark, int) or isinstance(mark, bool):
        return None
    return mark if last_change(session) >= mark else None


def read_changes(session: Session, after: int | None) -> Changes:
    """The sites changed after ``after`` (None: every site), in one statement (one snapshot).

    Read before the rows: the rows indexed are then at least this new, so recording this
    watermark can only cause a redo, never a missed update."""
    query = select(Site.host, Site.version, Site.change_seq)
    if after is not None:
        query = query.where(Site.change_seq > after)
    sites, mark = {}, after or 0
    for host, version, seq in session.execute(query):
        sites[host] = (version, seq)
        if seq is not None and seq > mark:
            mark = seq
    return Changes(sites, mark, after is None)


def stale_hosts(changes: Changes, mark: int | None, state: dict[str, Any]) -> list[str]:
    """The sites read that the generation does not hold as they are now."""
    if mark is not None:  # everything up to the watermark is indexed
        return sorted(h for h, (_, seq) in changes.sites.items() if seq is not None and seq > mark)
    legacy: dict[str, int] = state.get("sites") or {}  # a state from before the watermark
    return sorted(h for h, (version, _) in changes.sites.items() if legacy.get(h) != version)


def gone_hosts(index: tantivy.Index, changes: Changes) -> list[str]:
    """Hosts the index holds documents of that a full read did not find in the store."""
    if not changes.full:
        return []
    # Counted over live documents: a deleted site's terms linger until segments merge.
    terms = index.searcher().terms_with_prefix("site", "", filter_query=tantivy.Query.all_query())
    return sorted({host for host, count in terms if count} - set(changes.sites))

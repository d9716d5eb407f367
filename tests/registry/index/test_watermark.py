"""A sync reads only the sites changed since the generation's watermark (registry.index.changes),
on SQLite and PostgreSQL; every site only when there is no usable watermark or when asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, event
from sqlalchemy.orm import Session

import registry.index.handle as index_module
from registry.db.tables import ActionRow, Site
from registry.index import ActionIndex
from registry.index.files import read_state, write_state
from registry.model.schemas import stable_id
from registry.search import FindQuery, find
from registry.store.rows import mark_changed, utcnow
from tests.helpers.stores import add_site

SITES = 40


def names(index: ActionIndex, q: str) -> list[str]:
    return [r.name for r in find(index, FindQuery(q=q)).results]


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    for n in range(SITES):
        add_site(session, f"s{n}.example", [{"name": f"order_item_{n}", "title": "Order"}])
    idx = ActionIndex.open(tmp_path / "index")
    stats = idx.sync(session)
    assert (stats.full, stats.sites_read, stats.sites_indexed) == (True, SITES, SITES)
    return idx


def change(session: Session, host: str, title: str) -> None:
    site = session.query(Site).filter_by(host=host).one()
    n = host.split(".")[0].removeprefix("s")
    session.get_one(ActionRow, stable_id(host, "agent-actions", f"order_item_{n}")).title = title
    mark_changed(session, site, utcnow())
    session.flush()


def test_a_sync_reads_only_the_sites_changed_since_its_watermark(
    session: Session, index: ActionIndex
) -> None:
    statements: list[str] = []
    engine = session.get_bind()
    listener = lambda *args: statements.append(args[2])  # noqa: E731 - (conn, cursor, sql, ...)
    event.listen(engine, "before_cursor_execute", listener)
    try:
        change(session, "s3.example", "Reserve a gondola")
        change(session, "s7.example", "Rent a kayak")
        stats = index.sync(session)
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert (stats.full, stats.sites_read, stats.sites_indexed) == (False, 2, 2)
    # The one query that looks for changes asks the change_seq index for a range.
    polls = [s for s in statements if "SELECT sites.host, sites.version, sites.change_seq" in s]
    assert len(polls) == 1 and "WHERE sites.change_seq >" in polls[0]
    assert names(index, "gondola") == ["order_item_3"]
    assert names(index, "kayak") == ["order_item_7"]
    mark = read_state(index.root / "current")["watermark"]
    assert mark == session.query(Site).filter_by(host="s7.example").one().change_seq
    assert index.sync(session).sites_read == 0


def test_an_index_without_a_watermark_syncs_once_the_old_way(
    session: Session, index: ActionIndex
) -> None:
    folder = (index.root / "current").resolve()
    state = read_state(folder)
    # A state from before migration 0011: each site's version, no watermark.
    old = {f"s{n}.example": 1 for n in range(SITES)} | {"s2.example": 0}
    write_state(folder, {"schema": state["schema"], "sites": old})
    stats = index.sync(session)
    assert (stats.full, stats.sites_read, stats.sites_indexed) == (True, SITES, 1)
    assert read_state(folder) == state  # the watermark, and no host map any more
    assert index.sync(session).sites_read == 0


def test_a_store_behind_the_watermark_is_read_in_full(session: Session, index: ActionIndex) -> None:
    """The index was built from another (or a restored) store: its numbers mean nothing."""
    folder = (index.root / "current").resolve()
    write_state(folder, read_state(folder) | {"watermark": 10**12})
    stats = index.sync(session)
    assert (stats.full, stats.sites_read) == (True, SITES)
    assert read_state(folder)["watermark"] < 10**12


def test_rebuild_records_the_watermark(session: Session, index: ActionIndex) -> None:
    change(session, "s1.example", "Charter a yacht")
    stats = ActionIndex.rebuild(index.root, session)
    assert stats.full and stats.sites_read == SITES
    state = read_state(index.root / "current")
    assert state["watermark"] == session.query(Site).filter_by(host="s1.example").one().change_seq
    assert names(index, "yacht") == ["order_item_1"]
    assert index.sync(session).sites_read == 0


def test_a_failed_sync_keeps_the_last_good_index_and_its_watermark(
    session: Session, index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = index.root / "current"
    before = read_state(folder)
    change(session, "s5.example", "Hire a tandem")

    def broken(*_: Any) -> Any:
        yield from ()
        raise ConnectionError("the store went away mid-sync")

    monkeypatch.setattr(index_module, "site_documents", broken)
    with pytest.raises(ConnectionError):
        index.sync(session)
    assert read_state(folder) == before  # nothing recorded: the change is read again
    assert names(index, "order") and names(index, "tandem") == []  # the old index answers
    monkeypatch.undo()
    assert index.sync(session).sites_indexed == 1
    assert names(index, "tandem") == ["order_item_5"]


def test_a_reconcile_drops_deleted_sites_by_the_index_own_hosts(
    session: Session, index: ActionIndex
) -> None:
    add_site(session, "late.example", [{"name": "order_late", "title": "Order a zither"}])
    assert index.sync(session).sites_indexed == 1  # indexed incrementally, then deleted:
    session.execute(delete(Site).where(Site.host.in_(["late.example", "s9.example"])))
    assert index.sync(session).sites_removed == 0  # a watermark read sees no deleted rows
    stats = index.sync(session, full=True)
    assert (stats.sites_removed, stats.sites_indexed) == (2, 0)
    assert names(index, "zither") == [] and index.count() == SITES - 1
    assert index.sync(session, full=True).sites_removed == 0  # their lingering terms count 0

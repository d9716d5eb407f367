"""An operator's removal of a site (registry.store.removal.remove_site) on SQLite and PostgreSQL:
its actions go, its row and history stay, a second removal changes nothing, a crawl brings
it back."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import Document, FlowRow, Site, SiteHistory
from registry.store.export import site_manifest
from registry.store.lookup import site_detail, stats
from registry.store.promotion import NotFound, promote_site
from registry.store.removal import remove_site
from registry.store.rows import utcnow
from tests.helpers.promote import HOST, WriteCounter, manifest, names, update


def history(session: Session) -> list[SiteHistory]:
    return list(session.scalars(select(SiteHistory).order_by(SiteHistory.id)))


def test_remove_withdraws_everything_and_records_it(session: Session) -> None:
    promote_site(session, update(manifest("search", "checkout", flows=True)))
    now = utcnow()
    done = remove_site(session, "HTTPS://Shop.Example/", now)  # as a user types it
    assert (
        done.host,
        done.already_removed,
        done.documents,
        done.actions,
        done.flows,
        done.version,
    ) == (HOST, False, 1, 2, 1, 2)
    assert names(session) == [] and session.scalars(select(FlowRow)).all() == []
    assert session.scalars(select(Document)).all() == []
    site = session.scalars(select(Site)).one()
    assert (site.removed_at, site.version) == (now, 2)
    last = history(session)[-1]
    assert (last.reason, last.version, last.actions, last.flows) == ("removed", 2, 0, 0)
    assert last.removed == ["checkout", "flow:buy", "search"] and last.added == []


def test_a_second_removal_writes_nothing(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    first = remove_site(session, HOST)
    session.flush()
    counter = WriteCounter(session)
    try:
        again = remove_site(session, HOST)
        session.flush()
    finally:
        counter.close()
    assert again.already_removed and again.removed_at == first.removed_at
    assert counter.writes == [] and len(history(session)) == 2


def test_a_site_with_nothing_left_is_still_recorded_as_removed(session: Session) -> None:
    promote_site(session, update(manifest()))  # a manifest without actions
    remove_site(session, HOST)
    assert [e.reason for e in history(session)] == ["removed"]
    assert history(session)[0].removed == []


@pytest.mark.parametrize("host", ["unknown.example", "not a host!!"])
def test_an_unknown_host_is_not_found(session: Session, host: str) -> None:
    with pytest.raises(NotFound):
        remove_site(session, host)


def test_a_crawl_brings_a_removed_site_back(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    remove_site(session, HOST)
    result = promote_site(session, update(manifest("search")))
    assert result.changed and names(session) == ["search"]
    site = session.scalars(select(Site)).one()
    assert site.removed_at is None and site.version == 3
    last = history(session)[-1]
    assert (last.reason, last.added, last.version) == ("crawl", ["search"], 3)


def test_a_removed_site_is_neither_counted_nor_exported(session: Session) -> None:
    """Issue 21: after `sites remove`, /stats still counted the site and its manifest was a
    200 with no actions."""
    promote_site(session, update(manifest("search", "checkout", flows=True)))
    before = stats(session)
    assert site_manifest(session, HOST) is not None
    remove_site(session, HOST)
    after = stats(session)
    assert after["sites"] == before["sites"] - 1
    assert (after["actions"], after["flows"], after["documents"]) == (
        before["actions"] - 2,
        before["flows"] - 1,
        before["documents"] - 1,
    )
    assert site_manifest(session, HOST) is None  # GET /sites/{host}/manifest: 404
    assert site_detail(session, HOST) is not None  # the site page keeps saying it was removed

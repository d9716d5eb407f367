"""Crawl runs and a site's history page by one keyset (registry.store.keyset): newest first,
the same cursor handed out and the same cursors refused."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import Site
from registry.model.bounds import MAX_PAGE, MAX_ROW_ID
from registry.store.crawl_state import start_run
from registry.store.history import list_history
from registry.store.keyset import BadCursor
from registry.store.promotion import promote_site
from registry.store.runs import list_runs
from tests.helpers.promote import manifest, update

BAD = ["", "abc", "0", "007", "-1", "1.5", " 1", "²", "9" * 11]


def _listings(session: Session) -> dict[str, object]:
    for n in range(5):
        start_run(session, "crawl", [f"{n}.example"])
        promote_site(session, update(manifest(*(f"a{i}" for i in range(n + 1)))))
    site_id = session.scalars(select(Site.id)).one()
    return {
        "runs": lambda **kw: list_runs(session, **kw),
        "history": lambda **kw: list_history(session, site_id, **kw),
    }


def test_runs_and_history_page_alike(session: Session) -> None:
    for name, listing in _listings(session).items():
        pages, cursor = [], None
        while True:
            items, cursor = listing(limit=2, cursor=cursor)  # type: ignore[operator]
            pages.append([item["id"] for item in items])
            if cursor is None:
                break
            assert cursor == str(items[-1]["id"]), name
        ids = [i for page in pages for i in page]
        assert [len(page) for page in pages] == [2, 2, 1] and ids == sorted(ids, reverse=True)
        # A cursor past any id a column holds stands before them all (on PostgreSQL it was an
        # error in the query).
        for past in (str(MAX_ROW_ID), str(MAX_ROW_ID + 1), "9" * 10):
            everything, _ = listing(limit=MAX_PAGE, cursor=past)  # type: ignore[operator]
            assert [item["id"] for item in everything] == ids, (name, past)


@pytest.mark.parametrize("bad", BAD)
def test_runs_and_history_refuse_the_same_cursors(session: Session, bad: str) -> None:
    for listing in _listings(session).values():
        with pytest.raises(BadCursor):
            listing(cursor=bad)  # type: ignore[operator]

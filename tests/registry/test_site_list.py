"""registry.store.site_list: the site list as a change feed. Pages follow a stable cursor; a
site that changes while a mirror pages through is listed again once with its new version, and
none is missed or listed twice for one change (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy.orm import Session

from registry.store.keyset import BadCursor
from registry.store.site_list import SITE_CURSOR_PATTERN, cursor_after, list_sites
from tests.helpers.stores import add_site, promote_manifest

T0 = datetime(2031, 1, 1, 12, 0, 0, 250_000)  # later than any other test's site


def crawl(session: Session, host: str, now: datetime, title: str = "Search") -> None:
    promote_manifest(
        session, host, [{"name": "search", "title": title, "method": "GET", "path": "/s{?q}"}], now
    )


def feed(session: Session, **filters: Any) -> list[dict[str, Any]]:
    """Every page of the list, after T0, following the cursors."""
    items, cursor = [], None
    while True:
        page, cursor = list_sites(session, limit=2, cursor=cursor, updated_since=T0, **filters)
        items += page
        if cursor is None:
            return items


def test_pages_follow_the_cursor_in_change_order(session: Session) -> None:
    hosts = [f"s{n}.feed.example" for n in range(5)]
    for n, host in enumerate(reversed(hosts)):  # stored in reverse, changed in order below
        crawl(session, host, T0 + timedelta(seconds=4 - n))
    items = feed(session)
    assert [i["host"] for i in items] == hosts
    assert all(i["actions"] == 1 and i["formats"] == ["agent-actions"] for i in items)
    assert items[0]["updated_at"] == "2031-01-01T12:00:00.250000+00:00"


def test_a_change_between_pages_is_neither_missed_nor_repeated(session: Session) -> None:
    hosts = [f"s{n}.feed.example" for n in range(6)]
    for n, host in enumerate(hosts):
        crawl(session, host, T0 + timedelta(seconds=n))
    seen: list[tuple[str, int]] = []
    page, cursor = list_sites(session, limit=2, updated_since=T0)
    seen += [(i["host"], i["version"]) for i in page]
    # While the mirror holds its cursor, a site it has seen and one it has not both change.
    later = T0 + timedelta(seconds=100)
    crawl(session, hosts[1], later, title="Search again")
    crawl(session, hosts[3], later, title="Search again")
    while cursor is not None:
        page, cursor = list_sites(session, limit=2, cursor=cursor)
        seen += [(i["host"], i["version"]) for i in page]
    assert len(seen) == len(set(seen))  # no site twice for the same change
    latest = {host: version for host, version in seen}
    assert set(latest) == set(hosts)  # none missed
    assert latest[hosts[1]] == 2 and latest[hosts[3]] == 2
    assert [h for h, _ in seen].count(hosts[3]) == 1  # moved behind the cursor: listed once
    assert seen[-2:] == [(hosts[1], 2), (hosts[3], 2)]


def test_a_mirror_resumes_where_it_stopped(session: Session) -> None:
    crawl(session, "a.resume.example", T0)
    page, more = list_sites(session, limit=10, updated_since=T0)
    assert more is None and [i["host"] for i in page] == ["a.resume.example"]
    resume = cursor_after(page, None)
    assert list_sites(session, limit=10, cursor=resume)[0] == []
    assert cursor_after([], resume) == resume
    crawl(session, "b.resume.example", T0 + timedelta(seconds=1))
    assert [i["host"] for i in list_sites(session, limit=10, cursor=resume)[0]] == [
        "b.resume.example"
    ]


def test_filters(session: Session) -> None:
    crawl(session, "with.filter.example", T0)
    add_site(session, "empty.filter.example", [], changed_at=T0 + timedelta(seconds=1))
    assert [i["host"] for i in feed(session, has_actions=True)] == ["with.filter.example"]
    assert [i["host"] for i in feed(session, has_actions=False)] == ["empty.filter.example"]
    assert len(feed(session, format="agent-actions")) == 2
    assert feed(session, format="openapi") == []
    # updated_since with a zone is compared in UTC; it includes the moment itself.
    since = (T0 + timedelta(seconds=1)).replace(tzinfo=UTC).astimezone(timezone(timedelta(hours=2)))
    page, _ = list_sites(session, limit=10, updated_since=since)
    assert [i["host"] for i in page] == ["empty.filter.example"]


@pytest.mark.parametrize("token", ["nonsense!", "W10", "WyJ4IiwieSJd", "e30", "x" * 700])
def test_a_cursor_not_handed_out_is_refused(session: Session, token: str) -> None:
    with pytest.raises(BadCursor):
        list_sites(session, limit=2, cursor=token)


@pytest.mark.parametrize(
    "token", ["0~a", "-999999999999999999~a", "999999999999999999~[::1]", "1~~!"]
)
def test_every_token_of_the_published_shape_is_a_place_in_the_list(
    session: Session, token: str
) -> None:
    """Issue 21 (schemathesis): GET /sites refused `cursor=0`, which its schema allowed. The
    pattern in the OpenAPI document is the whole rule: a token that matches it is a place in
    the order (past either end of time: that end), and every token handed out matches it."""
    assert re.fullmatch(SITE_CURSOR_PATTERN, token)
    list_sites(session, limit=2, cursor=token)
    crawl(session, "one.cursor.example", T0)
    crawl(session, "two.cursor.example", T0 + timedelta(seconds=1))
    page, handed = list_sites(session, limit=1)
    assert handed and re.fullmatch(SITE_CURSOR_PATTERN, handed)
    assert re.fullmatch(SITE_CURSOR_PATTERN, cursor_after(page, None) or "")

"""Submissions in the store, on SQLite and PostgreSQL: one open per host, the queue, the
crawl side (mark_crawling, settle, requeue) and the limits counted in the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from registry.config import Settings
from registry.db.tables import Submission
from registry.store.rows import utcnow
from registry.submissions.limits import Limited, Limits, client_hash, registrable_domain
from registry.submissions.queue import (
    MAX_ATTEMPTS,
    mark_crawling,
    pending_hosts,
    pending_targets,
    requeue,
    settle,
    submit,
)
from tests.helpers.stores import add_site


def test_duplicates_collapse_onto_the_open_submission(session: Session) -> None:
    now = utcnow()
    first, created = submit(session, "https://shop.example/", now)
    again, created_again = submit(session, "http://SHOP.example/about", now)
    assert created and not created_again and again.id == first.id
    assert first.status == "queued" and first.host == "shop.example"
    other, created_other = submit(session, "http://SHOP.example:8080/about", now)
    assert created_other and other.host == "shop.example:8080"  # another port: another site
    assert len(first.id) >= 22 and first.id.isascii()  # 18 random bytes, URL-safe


@pytest.mark.parametrize(
    "url,stored",
    [
        ("https://shop.example/admin/reset?token=s3cret#step-2", "https://shop.example/"),
        ("http://Shop.Example:8080/a/b?c=d", "http://shop.example:8080/"),
        ("https://shop.example#frag", "https://shop.example/"),
        ("http://[2001:db8::1]:8443/x?y", "http://[2001:db8::1]:8443/"),
    ],
)
def test_only_the_site_s_homepage_is_stored(session: Session, url: str, stored: str) -> None:
    """Issue 25 item 8: a path, query or fragment may carry someone's secret; the crawl starts
    at the site's origin anyway (crawler.targets.site_origin), so only that is kept."""
    row, _ = submit(session, url, utcnow())
    assert row.url == stored
    session.flush()
    assert session.scalar(select(Submission.url).where(Submission.id == row.id)) == stored


def test_one_open_submission_per_host_is_a_unique_index(session: Session) -> None:
    now = utcnow()
    row, _ = submit(session, "https://shop.example/", now)
    settle(session, "shop.example", [], now)  # failed: no actions; closed, off the index
    later, created = submit(session, "https://shop.example/", now)
    assert created and later.id != row.id
    twin = Submission(
        id="x" * 24,
        url="https://shop.example/",
        host="shop.example",
        domain="shop.example",
        status="crawling",
        errors=[],
        actions=[],
        attempts=0,
        created_at=now,
    )
    with pytest.raises(IntegrityError), session.begin_nested():
        session.add(twin)


def test_the_queue_is_oldest_first_and_crawling_leaves_it(session: Session) -> None:
    start = utcnow()
    for i, host in enumerate(["b.example", "a.example", "c.example"]):
        submit(session, f"http://{host}:8001/", start + timedelta(seconds=i))
    assert pending_hosts(session, 10) == ["b.example:8001", "a.example:8001", "c.example:8001"]
    assert pending_targets(session, 2) == ["http://b.example:8001/", "http://a.example:8001/"]
    assert mark_crawling(session, ["a.example:8001", "a.example", "nowhere.example"], 7, start) == 1
    assert pending_hosts(session, 10) == ["b.example:8001", "c.example:8001"]


def test_settle_done_lists_the_actions_found(session: Session) -> None:
    now = utcnow()
    row, _ = submit(session, "https://shop.example/", now)
    mark_crawling(session, ["shop.example"], 1, now)
    add_site(
        session,
        "shop.example",
        [{"name": "search", "title": "Search"}, {"name": "buy", "title": "Buy", "effect": "spend"}],
    )
    assert settle(session, "shop.example", ["not-modified-noise"], now) == 1
    assert row.status == "done" and row.reason is None and row.finished_at == now
    assert [a["name"] for a in row.actions] == ["buy", "search"]
    assert all(len(a["id"]) == 24 and a["title"] for a in row.actions)
    assert pending_hosts(session, 10) == []


@pytest.mark.parametrize(
    "errors,says",
    [
        (["robots-disallowed"], "robots.txt on shop.example disallows"),
        (["timeout", "dns-error", "timeout"], "the site's errors: dns-error, timeout"),
        ([], "no actions found on shop.example"),
    ],
)
def test_settle_failed_says_why(session: Session, errors: list[str], says: str) -> None:
    now = utcnow()
    row, _ = submit(session, "https://shop.example/", now)
    settle(session, "shop.example", errors, now)
    assert row.status == "failed" and says in (row.reason or "")
    assert row.errors == sorted(set(errors)) and row.actions == []


def test_a_crawl_that_never_reached_the_host_requeues_then_fails(session: Session) -> None:
    now = utcnow()
    row, _ = submit(session, "https://shop.example/", now)
    for run in range(1, MAX_ATTEMPTS):
        mark_crawling(session, ["shop.example"], run, now)
        assert requeue(session, run, now) == 1 and row.status == "queued"
        assert row.attempts == run
    mark_crawling(session, ["shop.example"], 99, now)
    assert requeue(session, 42, now) == 0  # another run's: not touched
    requeue(session, 99, now)
    assert row.status == "failed" and row.errors == ["crawl-incomplete"]
    assert f"{MAX_ATTEMPTS} crawls ended" in (row.reason or "")


def test_the_limit_per_client_counts_a_sliding_window(session: Session) -> None:
    limits = Limits(per_client=2, per_domain=0, window=600)
    start, client = utcnow(), client_hash("203.0.113.9", "k")
    submit(session, "https://a.example/", start, client=client, limits=limits)
    submit(
        session, "https://b.example/", start + timedelta(seconds=100), client=client, limits=limits
    )
    # a duplicate creates nothing and counts nothing
    submit(
        session, "https://a.example/", start + timedelta(seconds=101), client=client, limits=limits
    )
    with pytest.raises(Limited) as refused:
        submit(
            session,
            "https://c.example/",
            start + timedelta(seconds=200),
            client=client,
            limits=limits,
        )
    assert refused.value.code == "rate-limited" and refused.value.retry_after == 400
    other = client_hash("203.0.113.10", "k")
    submit(
        session, "https://c.example/", start + timedelta(seconds=200), client=other, limits=limits
    )
    submit(
        session, "https://d.example/", start + timedelta(seconds=601), client=client, limits=limits
    )  # the first has left the window


def test_the_limit_per_registrable_domain_spans_its_subdomains(session: Session) -> None:
    limits = Limits(per_client=0, per_domain=2, window=60)
    now = utcnow()
    for i, host in enumerate(["a.shop.example.co.uk", "b.shop.example.co.uk"]):
        submit(session, f"https://{host}/", now, client=f"c{i}", limits=limits)
    with pytest.raises(Limited) as refused:
        submit(
            session,
            "https://example.co.uk/",
            now + timedelta(seconds=15),
            client="c9",
            limits=limits,
        )
    assert "example.co.uk" in str(refused.value) and refused.value.retry_after == 45
    submit(session, "https://other.co.uk/", now, client="c9", limits=limits)
    submit(session, "https://x.example.co.uk/", now)  # the operator: no limits


def test_the_queue_is_bounded(session: Session) -> None:
    limits = Limits(per_client=0, per_domain=0, max_queued=2)
    now = utcnow()
    submit(session, "https://a.example/", now, limits=limits)
    submit(session, "https://b.example/", now, limits=limits)
    with pytest.raises(Limited) as refused:
        submit(session, "https://c.example/", now, limits=limits)
    assert refused.value.code == "queue-full" and refused.value.retry_after > 0


@pytest.mark.parametrize(
    "host,domain",
    [
        ("a.b.example.co.uk", "example.co.uk"),
        ("shop.test", "shop.test"),
        ("user.github.io", "user.github.io"),
        ("www.user.github.io", "user.github.io"),
        ("co.uk", "co.uk"),
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8::1", "2001:db8::1"),
        ("xn--pypal-4ve.test", "xn--pypal-4ve.test"),
    ],
)
def test_registrable_domains_follow_the_public_suffix_list(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


def test_client_addresses_are_stored_as_a_keyed_hash() -> None:
    one = client_hash("203.0.113.9", "secret")
    assert "203.0.113.9" not in one and len(one) == 64
    assert one == client_hash("203.0.113.9", "secret") != client_hash("203.0.113.9", "other")


def test_limits_come_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONDEX_SUBMIT_PER_CLIENT", "3")
    monkeypatch.setenv("ACTIONDEX_SUBMIT_WINDOW", "90")
    limits = Limits.from_settings(Settings())
    assert (limits.per_client, limits.window, limits.per_domain) == (3, 90, 5)

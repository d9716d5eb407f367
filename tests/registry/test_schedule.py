"""registry.store.schedule: interval arithmetic, back-off, jitter and which sites are due, on both
databases."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import Site
from registry.store.rows import get_or_create_site
from registry.store.schedule import (
    JITTER,
    Bounds,
    after_crawl,
    backoff,
    due_hosts,
    is_due,
    jitter,
    next_interval,
)

NOW = datetime(2026, 12, 1, 12, 0, 0)
B = Bounds(min=3600, initial=86400, max=7 * 86400, backoff_max=2 * 86400)


def test_a_first_crawl_gets_the_initial_interval_whatever_its_outcome() -> None:
    for outcome in ("changed", "unchanged", "failed"):
        assert next_interval(None, outcome, B) == B.initial


def test_changed_halves_down_to_the_minimum_and_unchanged_grows_up_to_the_maximum() -> None:
    assert next_interval(86400, "changed", B) == 43200
    assert next_interval(5000, "changed", B) == B.min  # 2500 would be below the floor
    assert next_interval(86400, "unchanged", B) == 129600
    assert next_interval(6 * 86400, "unchanged", B) == B.max  # 9 days capped at 7
    assert next_interval(100, "unchanged", B) == B.min  # below the floor (bounds changed)
    assert next_interval(86400, "failed", B) == 86400  # a failure keeps the earned interval


def test_backoff_doubles_per_consecutive_failure_and_is_capped() -> None:
    assert [backoff(n, B) for n in (1, 2, 3, 4)] == [3600, 7200, 14400, 28800]
    assert backoff(6, B) == 32 * 3600  # still under the 48 h cap
    assert backoff(10, B) == B.backoff_max
    assert backoff(10_000, B) == B.backoff_max  # no overflow for a site dead for years


def test_jitter_is_fixed_per_host_small_and_spreads_hosts() -> None:
    values = [jitter(f"site{i}.example") for i in range(200)]
    assert jitter("site1.example") == values[1]
    assert all(0 <= v < JITTER for v in values)
    assert len({round(v, 4) for v in values}) > 150  # not all alike


def _site(session: Session, host: str) -> Site:
    return get_or_create_site(session, host, f"https://{host}", NOW)


def _delay(site: Site) -> float:
    assert site.next_crawl_at is not None
    return (site.next_crawl_at - NOW).total_seconds()


def test_after_crawl_schedules_a_new_site_then_adapts(session: Session) -> None:
    site = _site(session, "adapt.example")
    due = after_crawl(session, "adapt.example", "changed", B, NOW)
    assert due == site.next_crawl_at and site.crawl_interval == B.initial
    assert site.last_crawled_at == NOW and site.crawl_failures == 0
    assert B.initial * (1 - JITTER) < _delay(site) <= B.initial
    assert _delay(site) == pytest.approx(B.initial * (1 - jitter("adapt.example")), abs=1e-3)
    after_crawl(session, site, "unchanged", B, NOW)
    assert site.crawl_interval == B.initial * 1.5
    after_crawl(session, site, "changed", B, NOW)
    assert site.crawl_interval == B.initial * 0.75


def test_failures_back_off_and_a_good_crawl_resets_them(session: Session) -> None:
    site = _site(session, "flaky.example")
    after_crawl(session, site, "unchanged", B, NOW)
    earned = site.crawl_interval
    delays = []
    for _ in range(3):
        after_crawl(session, site, "failed", B, NOW)
        delays.append(_delay(site))
    assert site.crawl_failures == 3 and site.crawl_interval == earned
    factor = 1 - jitter("flaky.example")
    assert delays == pytest.approx([3600 * factor, 7200 * factor, 14400 * factor], abs=1e-3)
    after_crawl(session, site, "unchanged", B, NOW)
    assert site.crawl_failures == 0 and _delay(site) > 14400


def test_after_crawl_refuses_an_unknown_outcome_and_ignores_an_unknown_host(
    session: Session,
) -> None:
    with pytest.raises(ValueError, match="outcome"):
        after_crawl(session, "x.example", "exploded", B, NOW)  # type: ignore[arg-type]
    assert after_crawl(session, "never-stored.example", "changed", B, NOW) is None


def test_due_hosts_most_overdue_first_with_a_limit_and_is_due(session: Session) -> None:
    for host, ago in (
        ("a.example", 10),
        ("b.example", 300),
        ("c.example", -60),
        ("d.example", 300),
    ):
        _site(session, host).next_crawl_at = NOW - timedelta(seconds=ago)
    _site(session, "never.example")  # never scheduled (an ingested site): never due
    session.flush()
    assert due_hosts(session, NOW, 10) == ["b.example", "d.example", "a.example"]
    assert due_hosts(session, NOW, 1) == ["b.example"]
    assert due_hosts(session, NOW - timedelta(hours=1), 10) == []
    assert is_due(session, "a.example", NOW)
    assert not is_due(session, "c.example", NOW)
    assert not is_due(session, "never.example", NOW)
    assert not is_due(session, "unknown.example", NOW)


def test_a_crawled_site_leaves_the_due_list_until_its_time(session: Session) -> None:
    _site(session, "cycle.example").next_crawl_at = NOW - timedelta(minutes=5)
    session.flush()
    assert "cycle.example" in due_hosts(session, NOW, 100)
    after_crawl(session, "cycle.example", "unchanged", B, NOW)
    assert "cycle.example" not in due_hosts(session, NOW, 100)
    later = NOW + timedelta(seconds=B.initial)
    assert "cycle.example" in due_hosts(session, later, 100)
    row = session.scalars(select(Site).where(Site.host == "cycle.example")).one()
    assert row.next_crawl_at is not None and row.next_crawl_at <= later


@pytest.mark.skipif(
    not hasattr(Site, "removed_at"),
    reason="Site.removed_at comes with the history work (migration 0008)",
)
def test_a_removed_site_is_never_due(session: Session) -> None:
    for host in ("kept.example", "removed.example"):
        _site(session, host).next_crawl_at = NOW - timedelta(hours=1)
    removed = session.scalars(select(Site).where(Site.host == "removed.example")).one()
    removed.removed_at = NOW - timedelta(minutes=1)  # type: ignore[attr-defined]
    session.flush()
    assert due_hosts(session, NOW, 10) == ["kept.example"]
    assert not is_due(session, "removed.example", NOW)

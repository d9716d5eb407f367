"""What is due is decided once (registry.store.schedule.due_work and should_crawl), and both
`actiondex crawl --due` and the queue ask it: they pick the same sites in the same order."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from actiondex.due import crawl_selection
from actiondex.jobs import hooks
from registry.store.rows import utcnow
from registry.store.schedule import due_work, should_crawl
from registry.submissions.queue import submit
from tests.helpers.stores import add_site


def test_both_runners_take_the_same_work_in_the_same_order(session: Session) -> None:
    now = utcnow()
    add_site(session, "late.example", [], next_crawl_at=now - timedelta(hours=2))
    add_site(session, "due.example", [], next_crawl_at=now - timedelta(hours=1))
    add_site(session, "fresh.example", [], next_crawl_at=now + timedelta(hours=1))
    submit(session, "http://new.example:8080/", now - timedelta(minutes=2))
    submit(session, "https://due.example/", now - timedelta(minutes=1))  # due and submitted
    work = [
        ("new.example:8080", "http://new.example:8080/"),
        ("due.example", "https://due.example/"),
        ("late.example", None),
    ]
    for limit in (1, 2, 3, 10):
        assert due_work(session, now, limit) == work[:limit]
        assert [(host, url) for host, url, _ in hooks.due_work(session, now, limit)] == (
            work[:limit]
        )
        assert crawl_selection(session, limit) == [
            url or f"https://{host}" for host, url in work[:limit]
        ]
    assert due_work(session, now, 10, ["fresh.example", "late.example", "due.example"]) == [
        ("due.example", "https://due.example/"),
        ("late.example", None),
    ]
    assert [
        should_crawl(session, host, now)
        for host in (
            "new.example:8080",
            "due.example",
            "late.example",
            "fresh.example",
            "nowhere.example",
        )
    ] == [True, True, True, False, False]
    assert [hooks.is_due(session, host, now) for host in ("new.example:8080", "fresh.example")] == [
        True,
        False,
    ]


def test_named_hosts_are_asked_in_chunks_with_the_same_answer(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crawl child's `crawl --due HOST...` asks the store which of its hosts are due a
    chunk at a time (one query each, not one a host): the same hosts, in the order named."""
    from registry.store import schedule

    now = utcnow()
    for n in range(5):
        add_site(session, f"s{n}.example", [], next_crawl_at=now + timedelta(hours=n % 2 * 2 - 1))
    named = [
        "s4.example",
        "s1.example",
        "nowhere.example",
        "s0.example",
        "s2.example",
        "s3.example",
    ]
    whole = due_work(session, now, 10, named)
    assert whole == [("s4.example", None), ("s0.example", None), ("s2.example", None)]
    monkeypatch.setattr(schedule, "ONLY_CHUNK", 2)
    assert due_work(session, now, 10, named) == whole

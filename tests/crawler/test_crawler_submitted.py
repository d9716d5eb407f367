"""A submitted site is crawled first: `actiondex crawl --due` takes pending submissions before
the sites that are due, and its crawl settles them (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from actiondex.demo.web import DemoWeb
from actiondex.due import crawl_selection
from registry.db.tables import CrawlRun, Submission
from registry.model.urls import key_host
from registry.store.rows import utcnow
from registry.submissions.queue import mark_crawling, submit
from tests.helpers.crawls import actiondex, crawl_args, small_web, store_engine
from tests.helpers.stores import add_site

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[DemoWeb]:
    with small_web(tmp_path / "sites", ("known.test", "new.test")) as served:
        yield served


def test_crawl_due_takes_submissions_first_and_settles_them(
    web: DemoWeb, tmp_path: Path, empty_db_url: str
) -> None:
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    known, new = (f"http://{host}:{web.port}/" for host in ("known.test", "new.test"))
    first = actiondex(tmp_path, empty_db_url, *crawl_args(web, known))
    assert first.returncode == 0, first.stderr  # known.test is stored, and not due for hours
    flags = [arg for entry in web.resolve_args() for arg in ("--resolve", entry)]
    for url in (new, known):
        proc = actiondex(tmp_path, empty_db_url, "submit", "--json", *flags, url)
        assert proc.returncode == 0 and json.loads(proc.stdout)["created"], proc.stderr

    due = actiondex(tmp_path, empty_db_url, *crawl_args(web, "--due"))

    assert due.returncode == 0, due.stdout + due.stderr
    summary = json.loads(due.stdout)
    assert summary["due"] == 2
    assert {key_host(row["host"]) for row in summary["per_site"]} == {"known.test", "new.test"}
    engine = store_engine(empty_db_url)
    with Session(engine) as session:
        rows = {key_host(s.host): s for s in session.scalars(select(Submission))}
    engine.dispose()
    assert {h: r.status for h, r in rows.items()} == {"known.test": "done", "new.test": "done"}
    assert [a["name"] for a in rows["new.test"].actions] == ["search"]
    assert rows["new.test"].run_id is not None and rows["new.test"].attempts == 1


def test_the_selection_puts_submissions_before_due_sites(session: Session) -> None:
    now = utcnow()
    add_site(session, "due.example", [], next_crawl_at=now - timedelta(hours=1))
    add_site(session, "fresh.example", [], next_crawl_at=now + timedelta(hours=1))
    submit(session, "http://new.example:8080/", now - timedelta(minutes=2))
    submit(session, "https://due.example/", now - timedelta(minutes=1))  # due and submitted
    assert crawl_selection(session, 10) == ["http://new.example:8080/", "https://due.example/"]
    assert crawl_selection(session, 1) == ["http://new.example:8080/"]
    assert crawl_selection(session, 10, ["due.example", "fresh.example"]) == [
        "https://due.example/"
    ]


def test_a_dead_run_gives_its_submissions_back_to_the_queue(
    web: DemoWeb, tmp_path: Path, empty_db_url: str
) -> None:
    """A crawl killed mid-run leaves its submissions `crawling`; the next crawl's sweep marks
    the run aborted and puts them back in the queue, where `crawl --due` finds them."""
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    engine = store_engine(empty_db_url)
    long_ago = utcnow() - timedelta(hours=2)
    with Session(engine) as session, session.begin():
        dead = CrawlRun(
            kind="crawl",
            status="running",
            started_at=long_ago,
            targets=[],
            stats={},
            heartbeat_at=long_ago,
            owner="elsewhere:1",
        )
        session.add(dead)
        session.flush()
        dead_id = dead.id
        submit(session, f"http://new.test:{web.port}/", long_ago)
        mark_crawling(session, [f"new.test:{web.port}"], dead_id, long_ago)
    other = actiondex(tmp_path, empty_db_url, *crawl_args(web, f"http://known.test:{web.port}/"))
    assert other.returncode == 0, other.stderr
    with Session(engine) as session:
        row = session.scalars(select(Submission)).one()
        assert (row.status, row.started_at) == ("queued", None)
        assert session.get(CrawlRun, dead_id).status == "aborted"  # type: ignore[union-attr]
    due = actiondex(tmp_path, empty_db_url, *crawl_args(web, "--due"))
    assert [r["host"] for r in json.loads(due.stdout)["per_site"]] == [f"new.test:{web.port}"], (
        due.stderr
    )
    with Session(engine) as session:
        row = session.scalars(select(Submission)).one()
        assert (row.status, row.attempts) == ("done", 2)
    engine.dispose()

"""A job asks the store whether its site is still due (and how long its Crawl-delay holds it)
before it joins a crawl child; the jobs a worker takes together ask in one transaction."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, update

from actiondex.jobs import checks
from actiondex.jobs.batch import Batcher
from actiondex.jobs.checks import Checker
from actiondex.jobs.child import ChildResult
from actiondex.jobs.tasks import crawl_one
from harness.db import make_known
from registry.config import Settings
from registry.db.engine import transaction
from registry.db.tables import Site
from registry.store.rows import utcnow


def test_jobs_taken_together_check_their_sites_in_one_transaction(
    queue: tuple[Settings, Engine],
) -> None:
    """Before: a transaction of four queries a job, each in a thread of its own; a worker
    taking 128 jobs queued their checks behind a handful of threads, holding the crawl back."""
    settings, engine = queue
    hosts = [f"s{n}.test" for n in range(5)]
    with transaction(engine) as session:
        make_known(session, {host: f"http://{host}" for host in hosts})
        later = utcnow() + timedelta(hours=1)
        session.execute(update(Site).where(Site.host == "s4.test").values(next_crawl_at=later))
    begun: list[Any] = []
    event.listen(engine, "begin", begun.append)

    batches: list[tuple[list[str], bool]] = []

    async def child(targets: list[str], due: bool, on_site: Any) -> ChildResult:
        batches.append((targets, due))
        return ChildResult(0, {"per_site": []}, "")

    async def go() -> list[dict[str, Any]]:
        batcher = Batcher(child, size=64, linger=0.1, children=1)
        checker = Checker(engine, settings)
        results = await asyncio.gather(
            *(crawl_one(checker, batcher, host, None, "w") for host in hosts)
        )
        return results

    results = asyncio.run(go())
    assert len(begun) == 1
    assert ["exit" in r for r in results] == [True] * 4 + [False]  # crawled; not due: skipped
    assert batches == [([f"http://s{n}.test" for n in range(4)], True)]


def test_a_check_that_raises_fails_its_own_job_only(
    queue: tuple[Settings, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One site's stored state that the check cannot read fails that site's job (retried as
    any failed job), not every job asked in the same transaction."""
    settings, engine = queue
    hosts = ["good1.test", "bad.test", "good2.test"]
    with transaction(engine) as session:
        make_known(session, {host: f"http://{host}" for host in hosts})
        session.execute(
            update(Site)
            .where(Site.host.in_(hosts))
            .values(crawl_state={"robots": {"body": "User-agent: *\nCrawl-delay: 1\n"}})
        )
        session.execute(update(Site).values(last_crawled_at=utcnow() - timedelta(hours=1)))
    real = checks.crawl_delay

    def crawl_delay(state: Any, user_agent: str) -> float | None:
        if "bad" in state["robots"].get("marker", ""):
            raise ValueError("unreadable robots.txt")
        return real(state, user_agent)

    with transaction(engine) as session:
        session.execute(
            update(Site)
            .where(Site.host == "bad.test")
            .values(crawl_state={"robots": {"body": "Crawl-delay: 1\n", "marker": "bad"}})
        )
    monkeypatch.setattr(checks, "crawl_delay", crawl_delay)

    async def go() -> list[Any]:
        checker = Checker(engine, settings)
        return await asyncio.gather(*(checker.check(h) for h in hosts), return_exceptions=True)

    good1, bad, good2 = asyncio.run(go())
    assert isinstance(bad, ValueError)
    assert good1.due and good2.due and good1.origin == "http://good1.test"


def test_a_check_waits_out_the_remembered_crawl_delay(queue: tuple[Settings, Engine]) -> None:
    """The check reads the robots.txt the crawler remembers (only that part of the site's
    crawl state) and holds a site crawled a moment ago until its Crawl-delay has passed, in
    whatever case the robots.txt writes the directive."""
    settings, engine = queue
    with transaction(engine) as session:
        make_known(session, {"slow.test": "http://slow.test", "plain.test": "http://plain.test"})
        robots = {"status": 200, "body": "User-agent: *\nCRAWL-DELAY: 20\n", "at": 1}
        session.execute(
            update(Site)
            .where(Site.host == "slow.test")
            .values(crawl_state={"robots": robots, "guesses": {"/x": 404}})
        )
        session.execute(update(Site).values(last_crawled_at=utcnow()))

    async def go() -> list[Any]:
        checker = Checker(engine, settings)
        return list(await asyncio.gather(checker.check("slow.test"), checker.check("plain.test")))

    slow, plain = asyncio.run(go())
    assert 15 < slow.wait <= 20 and slow.origin == "http://slow.test"
    assert plain.wait == 0.0 and plain.origin == "http://plain.test"

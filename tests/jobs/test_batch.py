"""Jobs share crawl children (actiondex.jobs.batch): the sites asked for within the linger go to
one child, at most ``size`` each, due and submitted sites apart; a job ends when the child
reports its site stored (or, unreported, when the child ends); a job cancelled before its
child starts leaves the batch, one cancelled after waits for its site (its host's lock must
hold while the host is crawled), and the batch's last waiting job cancelled stops the child."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from actiondex.jobs.batch import Batcher, SiteResult, site_row
from actiondex.jobs.child import ChildFailed, ChildResult


class Children:
    """A stand-in for the crawl child: records each batch, ends when released; ``report``:
    the sites it reports stored as soon as it starts (the rest only in its summary)."""

    def __init__(
        self, hold: bool = False, fail: bool = False, report: tuple[str, ...] = ()
    ) -> None:
        self.batches: list[tuple[list[str], bool]] = []
        self.release = asyncio.Event()
        self.stopped = 0
        self.hold, self.fail, self.report = hold, fail, report
        if not hold:
            self.release.set()

    async def __call__(
        self, targets: list[str], due: bool, on_site: Callable[[dict[str, Any]], None]
    ) -> ChildResult:
        self.batches.append((targets, due))
        for target in targets:
            if target in self.report:
                on_site({"host": target, "documents": 1})
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.stopped += 1
            raise
        if self.fail:
            raise ChildFailed("exit -9 without a summary")
        rows = [{"host": t, "documents": 1} for t in targets]
        return ChildResult(0, {"per_site": rows}, "")


def test_jobs_of_one_moment_share_a_child_of_at_most_size_sites() -> None:
    async def go() -> tuple[Children, list[Any]]:
        children = Children()
        batcher = Batcher(children, size=3, linger=0.2, children=8)
        jobs = [batcher.crawl(f"s{n}.test", f"s{n}.test", True) for n in range(4)]
        jobs += [
            batcher.crawl("new.test", "new.test", False)
        ]  # submitted: a plain crawl, never --due
        results: list[SiteResult] = await asyncio.gather(*jobs)
        return children, [r.row for r in results]

    children, rows = asyncio.run(go())
    assert sorted(children.batches) == sorted(
        [(["s0.test", "s1.test", "s2.test"], True), (["s3.test"], True), (["new.test"], False)]
    )
    assert [row and row["host"] for row in rows] == [
        "s0.test",
        "s1.test",
        "s2.test",
        "s3.test",
        "new.test",
    ]


def test_a_full_batch_starts_at_once_and_a_later_job_opens_the_next() -> None:
    async def go() -> list[tuple[list[str], bool]]:
        children = Children()
        batcher = Batcher(children, size=2, linger=30, children=8)  # only a full batch starts soon
        first = [asyncio.create_task(batcher.crawl(h, h, True)) for h in ("a.test", "b.test")]
        await asyncio.wait_for(asyncio.gather(*first), 5)
        return children.batches

    assert asyncio.run(go()) == [(["a.test", "b.test"], True)]


def test_a_failed_child_fails_every_job_of_its_batch() -> None:
    async def go() -> list[Any]:
        batcher = Batcher(Children(fail=True), size=8, linger=0.05, children=8)
        return await asyncio.gather(
            batcher.crawl("a.test", "a.test", True),
            batcher.crawl("b.test", "b.test", True),
            return_exceptions=True,
        )

    assert [type(r) for r in asyncio.run(go())] == [ChildFailed, ChildFailed]


def test_a_job_cancelled_before_its_child_starts_leaves_the_batch() -> None:
    async def go() -> list[tuple[list[str], bool]]:
        children = Children()
        batcher = Batcher(children, size=8, linger=0.3, children=8)
        a = asyncio.create_task(batcher.crawl("a.test", "a.test", True))
        b = asyncio.create_task(batcher.crawl("b.test", "b.test", True))
        await asyncio.sleep(0.05)
        a.cancel()
        await b
        with pytest.raises(asyncio.CancelledError):
            await a
        return children.batches

    assert asyncio.run(go()) == [(["b.test"], True)]


def test_a_job_cancelled_while_its_child_runs_waits_for_it_and_the_last_stops_it() -> None:
    async def go() -> tuple[bool, int, int]:
        children = Children(hold=True)
        batcher = Batcher(children, size=2, linger=5, children=8)
        a = asyncio.create_task(batcher.crawl("a.test", "a.test", True))
        b = asyncio.create_task(batcher.crawl("b.test", "b.test", True))
        await asyncio.sleep(0.05)  # the batch is full: its child runs
        a.cancel()
        await asyncio.sleep(0.1)
        a_waits = not a.done()  # a.test is still being crawled: its job (and lock) holds
        stopped_early = children.stopped
        b.cancel()  # the last job: the child is stopped, both jobs end
        await asyncio.wait_for(asyncio.gather(a, b, return_exceptions=True), 5)
        return a_waits, stopped_early, children.stopped

    assert asyncio.run(go()) == (True, 0, 1)


def test_while_its_children_run_a_worker_gathers_one_batch_and_starts_no_other() -> None:
    """Before: every linger made a child of what had come, so jobs trickling in on a loaded
    machine made many small children at once (each a CPU-second to start)."""

    async def go() -> list[tuple[list[str], bool]]:
        children = Children(hold=True)
        batcher = Batcher(children, size=4, linger=0.01, children=1)
        jobs = [asyncio.create_task(batcher.crawl("a.test", "a.test", True))]
        for n in range(3):  # they come one by one, each past the linger
            await asyncio.sleep(0.05)
            jobs.append(asyncio.create_task(batcher.crawl(f"b{n}.test", f"b{n}.test", True)))
        await asyncio.sleep(0.05)
        running = list(children.batches)
        children.release.set()
        await asyncio.wait_for(asyncio.gather(*jobs), 5)
        return [*running, *children.batches[len(running) :]]

    assert asyncio.run(go()) == [
        (["a.test"], True),
        (["b0.test", "b1.test", "b2.test"], True),
    ]


def test_site_row_is_the_hosts_row_or_none() -> None:
    result = ChildResult(0, {"per_site": [{"host": "a.test"}]}, "")
    assert site_row(result, "a.test") == {"host": "a.test"}
    assert site_row(result, "b.test") is None
    assert site_row(ChildResult(1, {"error": {"message": "x"}}, ""), "a.test") is None


def test_a_job_ends_when_its_site_is_reported_not_when_its_child_ends() -> None:
    """Before: every job of a batch waited for the child's end, so each site waited for
    the batch's slowest while its worker slot sat idle."""

    async def go() -> tuple[SiteResult, bool, SiteResult]:
        children = Children(hold=True, report=("a.test",))
        batcher = Batcher(children, size=2, linger=5, children=1)
        a = asyncio.create_task(batcher.crawl("a.test", "a.test", True))
        b = asyncio.create_task(batcher.crawl("b.test", "b.test", True))
        first = await asyncio.wait_for(a, 5)  # the child still runs
        b_waited = not b.done()
        children.release.set()
        return first, b_waited, await asyncio.wait_for(b, 5)

    a, b_waited, b = asyncio.run(go())
    assert a == SiteResult({"host": "a.test", "documents": 1}, None)
    assert b_waited  # not reported: its row comes from the child's summary, at its end
    assert b.row == {"host": "b.test", "documents": 1}
    assert b.child is not None and b.child.returncode == 0


def test_a_child_with_half_its_sites_reported_lets_the_next_batch_start() -> None:
    """The slot of a child crawling its slow tail goes to the next batch; the cap on
    children alive still holds."""

    async def go(alive: int) -> list[tuple[list[str], bool]]:
        children = Children(hold=True, report=("a.test",))
        batcher = Batcher(children, size=2, linger=0.01, children=1, alive=alive)
        jobs = [asyncio.create_task(batcher.crawl(h, h, True)) for h in ("a.test", "b.test")]
        await asyncio.sleep(0.05)
        jobs.append(asyncio.create_task(batcher.crawl("c.test", "c.test", True)))
        await asyncio.sleep(0.1)
        started = list(children.batches)
        children.release.set()
        await asyncio.wait_for(asyncio.gather(*jobs), 5)
        return started

    assert asyncio.run(go(alive=2)) == [(["a.test", "b.test"], True), (["c.test"], True)]
    assert asyncio.run(go(alive=1)) == [(["a.test", "b.test"], True)]


def test_a_child_failing_after_it_reported_a_site_fails_only_the_others() -> None:
    async def go() -> list[Any]:
        batcher = Batcher(Children(fail=True, report=("a.test",)), size=8, linger=0.05, children=8)
        return await asyncio.gather(
            batcher.crawl("a.test", "a.test", True),
            batcher.crawl("b.test", "b.test", True),
            return_exceptions=True,
        )

    a, b = asyncio.run(go())
    assert a == SiteResult({"host": "a.test", "documents": 1}, None)
    assert isinstance(b, ChildFailed)


def test_the_last_job_waiting_cancelled_stops_the_child_though_others_ended() -> None:
    async def go() -> int:
        children = Children(hold=True, report=("a.test",))
        batcher = Batcher(children, size=2, linger=5, children=1)
        a = asyncio.create_task(batcher.crawl("a.test", "a.test", True))
        b = asyncio.create_task(batcher.crawl("b.test", "b.test", True))
        await asyncio.wait_for(a, 5)
        b.cancel()
        await asyncio.wait_for(asyncio.gather(b, return_exceptions=True), 5)
        return children.stopped

    assert asyncio.run(go()) == 1

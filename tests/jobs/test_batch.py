"""Jobs share crawl children (actiondex.jobs.batch): the sites asked for within the linger go to
one child, at most ``size`` each, due and submitted sites apart; a job cancelled before its
child starts leaves the batch, one cancelled after waits for the child (its host's lock must
hold while the host is crawled), and the batch's last job cancelled stops the child."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from actiondex.jobs.batch import Batcher, site_row
from actiondex.jobs.child import ChildFailed, ChildResult


class Children:
    """A stand-in for the crawl child: records each batch, ends when released."""

    def __init__(self, hold: bool = False, fail: bool = False) -> None:
        self.batches: list[tuple[list[str], bool]] = []
        self.release = asyncio.Event()
        self.stopped = 0
        self.hold, self.fail = hold, fail
        if not hold:
            self.release.set()

    async def __call__(self, targets: list[str], due: bool) -> ChildResult:
        self.batches.append((targets, due))
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
        jobs = [batcher.crawl(f"s{n}.test", True) for n in range(4)]
        jobs += [batcher.crawl("new.test", False)]  # submitted: a plain crawl, never --due
        results = await asyncio.gather(*jobs)
        return children, [
            site_row(r, h)
            for r, h in zip(
                results, ["s0.test", "s1.test", "s2.test", "s3.test", "new.test"], strict=True
            )
        ]

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
        first = [asyncio.create_task(batcher.crawl(h, True)) for h in ("a.test", "b.test")]
        await asyncio.wait_for(asyncio.gather(*first), 5)
        return children.batches

    assert asyncio.run(go()) == [(["a.test", "b.test"], True)]


def test_a_failed_child_fails_every_job_of_its_batch() -> None:
    async def go() -> list[Any]:
        batcher = Batcher(Children(fail=True), size=8, linger=0.05, children=8)
        return await asyncio.gather(
            batcher.crawl("a.test", True), batcher.crawl("b.test", True), return_exceptions=True
        )

    assert [type(r) for r in asyncio.run(go())] == [ChildFailed, ChildFailed]


def test_a_job_cancelled_before_its_child_starts_leaves_the_batch() -> None:
    async def go() -> list[tuple[list[str], bool]]:
        children = Children()
        batcher = Batcher(children, size=8, linger=0.3, children=8)
        a = asyncio.create_task(batcher.crawl("a.test", True))
        b = asyncio.create_task(batcher.crawl("b.test", True))
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
        a = asyncio.create_task(batcher.crawl("a.test", True))
        b = asyncio.create_task(batcher.crawl("b.test", True))
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
        jobs = [asyncio.create_task(batcher.crawl("a.test", True))]
        for n in range(3):  # they come one by one, each past the linger
            await asyncio.sleep(0.05)
            jobs.append(asyncio.create_task(batcher.crawl(f"b{n}.test", True)))
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

"""The scheduler's line for a tick says "queued already" only of sites that were."""

from __future__ import annotations

from actiondex.jobs.periodic import due_line


def test_the_line_says_queued_already_only_when_some_were() -> None:
    assert due_line(3, 3) == "scheduler: 3 sites due, 3 enqueued"
    assert due_line(1, 1) == "scheduler: 1 site due, 1 enqueued"
    assert due_line(5, 2) == "scheduler: 5 sites due, 2 enqueued (3 queued already)"
    assert due_line(5, 2, 3) == "scheduler: 5 sites due, 2 enqueued (3 being crawled)"
    assert due_line(6, 2, 3) == (
        "scheduler: 6 sites due, 2 enqueued (3 being crawled, 1 queued already)"
    )

"""A crawl run's lifecycle in the store (registry.store.crawl_state), on both databases: who owns
it, its heartbeat, and the sweep that ends runs their crawl abandoned."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from registry.db.tables import CrawlRun
from registry.store.crawl_state import (
    finish_run,
    heartbeat,
    start_run,
    sweep_abandoned_runs,
    this_owner,
)
from registry.store.rows import utcnow
from registry.submissions.queue import mark_crawling, pending_hosts, settle, submit


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: the pid names no process now
    return proc.pid


def _run(session: Session, owner: str | None = None, beat_ago: float = 0) -> CrawlRun:
    run = session.get_one(CrawlRun, start_run(session, "crawl", ["x.example"]))
    if owner is not None:
        run.owner = owner
    run.heartbeat_at = utcnow() - timedelta(seconds=beat_ago)
    session.flush()
    return run


def test_a_run_starts_running_owned_by_this_process_with_a_heartbeat(session: Session) -> None:
    before = utcnow()
    run = session.get_one(CrawlRun, start_run(session, "crawl", ["a.example"]))
    assert run.status == "running" and run.owner == this_owner()
    assert run.owner.endswith(f":{os.getpid()}")
    assert run.heartbeat_at is not None and run.heartbeat_at >= before
    later = utcnow() + timedelta(seconds=5)
    assert heartbeat(session, run.id, later)
    session.refresh(run)
    assert run.heartbeat_at == later


def test_the_sweep_aborts_silent_runs_and_runs_whose_process_is_gone(session: Session) -> None:
    here = socket.gethostname()
    alive = _run(session)  # this process, beating
    silent = _run(session, owner="elsewhere.example:4242", beat_ago=600)
    gone = _run(session, owner=f"{here}:{_dead_pid()}")  # fresh heartbeat, dead process
    far = _run(session, owner="elsewhere.example:4243", beat_ago=10)  # another machine's
    done = _run(session, beat_ago=600)
    finish_run(session, done.id, {"sites": 1})

    swept = sweep_abandoned_runs(session, utcnow(), timedelta(minutes=5))

    assert sorted(swept) == sorted([silent.id, gone.id])
    for run in (alive, silent, gone, far, done):
        session.refresh(run)
    assert (alive.status, far.status, done.status) == ("running", "running", "finished")
    assert silent.status == gone.status == "aborted"
    assert silent.finished_at is not None and gone.finished_at is not None
    assert gone.stats["aborted"] == "owner process gone"
    assert silent.stats["aborted"].startswith("no heartbeat since ")
    assert not heartbeat(session, gone.id)  # an ended run takes no more beats
    assert sweep_abandoned_runs(session, utcnow(), 300.0) == []  # seconds work too


def test_a_run_ends_with_a_known_status(session: Session) -> None:
    run = _run(session)
    with pytest.raises(ValueError, match="aborted"):
        finish_run(session, run.id, {}, status="exploded")
    finish_run(session, run.id, {"sites": 0}, status="aborted")
    assert run.status == "aborted" and run.finished_at is not None


def test_the_sweep_puts_a_swept_runs_submission_back_in_the_queue(session: Session) -> None:
    """Issue 25.3: a crawl that ended during an outage (spooled, its run never recorded) was
    swept `aborted` and its submission left `crawling`: the host could not be crawled or
    submitted again until the spool replayed. Now the sweep requeues it; a run still alive
    keeps its own."""
    now = utcnow()
    lost, _ = submit(session, "https://lost.example/", now)
    kept, _ = submit(session, "https://kept.example/", now)
    silent = _run(session, owner="elsewhere.example:4242", beat_ago=600)
    alive = _run(session, owner="elsewhere.example:4243", beat_ago=1)
    mark_crawling(session, ["lost.example"], silent.id, now)
    mark_crawling(session, ["kept.example"], alive.id, now)

    assert sweep_abandoned_runs(session, utcnow(), 300.0) == [silent.id]

    assert (lost.status, lost.started_at, lost.attempts) == ("queued", None, 1)
    assert kept.status == "crawling"
    assert pending_hosts(session, 10) == ["lost.example"]
    again, created = submit(session, "https://lost.example/other", utcnow())
    assert (again.id, created) == (lost.id, False)  # still one open submission per host
    # The spooled crawl replays later: it settles the submission once; another sweep or a
    # second settle changes nothing, and no attempt is counted for the replay.
    assert settle(session, "lost.example", [], utcnow()) == 1
    assert (lost.status, lost.attempts) == ("failed", 1)
    assert sweep_abandoned_runs(session, utcnow(), 300.0) == []
    assert settle(session, "lost.example", [], utcnow()) == 0
    assert pending_hosts(session, 10) == []

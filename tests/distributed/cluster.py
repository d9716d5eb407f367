"""Running the cluster of tests/distributed: workers and the scheduler as docker-compose.yml
starts them, their environment for a test, and what their logs and the store say."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from harness.procs import env_for as actiondex_env
from harness.web import LoopbackWeb
from registry.db.engine import transaction
from registry.db.tables import CrawlRun, Site
from registry.model.urls import key_host
from tests.distributed.compose import local


def env_for(url: str, data_dir: Path, web: LoopbackWeb) -> dict[str, str]:
    """Short intervals for a test: enqueue and look for stalled jobs every 2 s, a worker is
    dead after 10 s without a heartbeat (of 1 s: on a busy machine a live one may lag); the
    workers' crawls are fast (loopback). Each worker keeps 16 sites in flight in children of
    8: the sites flow through several batches, so a worker is killed while it crawls some,
    with more of them waiting in the queue."""
    return actiondex_env(
        data_dir,
        url,
        ACTIONDEX_RESOLVE=",".join(web.resolve_args()),
        ACTIONDEX_SCHEDULE_INTERVAL="2",
        ACTIONDEX_STALLED_INTERVAL="2",
        ACTIONDEX_HEARTBEAT_INTERVAL="1",
        ACTIONDEX_STALLED_AFTER="10",
        ACTIONDEX_CRAWL_HEARTBEAT="1",
        ACTIONDEX_CRAWL_STALE_AFTER="15",
        ACTIONDEX_JOB_TIMEOUT="120",
        ACTIONDEX_WORKER_DELAY="0.02",
        ACTIONDEX_WORKER_CONCURRENCY="16",
        ACTIONDEX_WORKER_BATCH="8",
    )


@contextmanager
def started(name: str, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with (
        log.open("wb") as sink,
        subprocess.Popen(local(name), env=env, stdout=sink, stderr=subprocess.STDOUT) as proc,
    ):
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=60)


def crawl_lines(log: Path, ok_only: bool = False) -> tuple[set[str], set[str]]:
    """The hosts a worker's log says it began crawling, and those it finished (the log names
    sites by key, ``host:port`` on the loopback web); ``ok_only``: those its child reported
    stored, or that ended with exit 0 (a crawl the database's stop ended says so in its last
    line, with its exit code)."""
    begun, ended = set(), set()
    for line in log.read_text(errors="replace").splitlines():
        if ": crawling " in line:
            begun.add(key_host(line.rsplit(" ", 1)[-1]))
        elif " crawled in " in line and (not ok_only or "(exit 0)" in line or "(stored)" in line):
            ended.add(key_host(line.split(": ", 2)[1].split(" ")[0]))
    return begun, ended


def stored_early(log: Path) -> set[str]:
    """Hosts whose job a worker's log says ended as its crawl child reported the site stored,
    before the child itself ended (its run may still end aborted or unrecorded)."""
    return {
        key_host(line.split(": ", 2)[1].split(" ")[0])
        for line in log.read_text(errors="replace").splitlines()
        if " crawled in " in line and "(stored)" in line
    }


def crawling_now(log: Path) -> set[str]:
    """Hosts a worker's log says it is crawling and has not finished."""
    begun, ended = crawl_lines(log)
    return begun - ended


def crawled(engine: Engine) -> int:
    with transaction(engine) as session:
        return int(
            session.scalar(
                select(func.count()).select_from(Site).where(Site.crawl_state.is_not(None))
            )
            or 0
        )


def wait_until(check: Any, seconds: float, what: str, *procs: subprocess.Popen[bytes]) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for proc in procs:
            assert proc.poll() is None, f"{proc.args} exited with {proc.returncode}"
        if result := check():
            return result
        time.sleep(0.5)
    pytest.fail(f"{what}: not within {seconds:.0f} s")


def running_runs(engine: Engine) -> list[list[str]]:
    with transaction(engine) as session:
        return list(session.scalars(select(CrawlRun.targets).where(CrawlRun.status == "running")))


def finished_runs(engine: Engine) -> list[tuple[str, float, float, int]]:
    """(host, started, finished, run id) of every finished crawl run, one per target."""
    with transaction(engine) as session:
        rows = session.execute(
            select(CrawlRun.targets, CrawlRun.started_at, CrawlRun.finished_at, CrawlRun.id).where(
                CrawlRun.status == "finished"
            )
        )
        return [
            (
                target.split("//")[1].split(":")[0],
                started.replace(tzinfo=UTC).timestamp(),
                ended.replace(tzinfo=UTC).timestamp(),
                run_id,
            )
            for targets, started, ended, run_id in rows
            for target in targets
        ]


def runs_of_all(engine: Engine) -> str:
    """Every crawl run, a line each (for an assertion's message)."""
    with transaction(engine) as session:
        rows = session.execute(
            select(CrawlRun.id, CrawlRun.status, CrawlRun.owner, CrawlRun.targets).order_by(
                CrawlRun.id
            )
        )
        return "\n".join(f"{i} {status} {owner} {targets}" for i, status, owner, targets in rows)

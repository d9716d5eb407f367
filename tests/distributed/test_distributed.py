"""Two workers and the scheduler over 100 loopback sites on PostgreSQL, started with the
commands docker-compose.yml runs: every site crawled exactly once in the due period, one worker
killed with -9 mid-crawl and its job retried on the other, no host crawled by two at once, and
the store consistent at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text

from harness.db import engine_for, make_known
from harness.web import LoopbackWeb
from registry.db.engine import transaction
from registry.db.tables import ActionRow, Document, Site
from tests.distributed.cluster import (
    crawled,
    crawling_now,
    env_for,
    finished_runs,
    running_runs,
    runs_of_all,
    started,
    stored_early,
    wait_until,
)
from tests.distributed.compose import local
from tests.distributed.web import request_times, robots_fetches, shops
from tests.helpers.family import descendants, survivors

# Each crawl child (~4 CPU-seconds of start-up: Python, Scrapy, the store) crawls up to 8 of
# the sites here (tests/distributed/cluster.py); fewer sites with ACTIONDEX_TEST_DIST_SITES.
SITES = int(os.environ.get("ACTIONDEX_TEST_DIST_SITES", "100"))
DEADLINE = 60 + 8 * SITES  # seconds for all of them, on a busy two-core machine
pytestmark = pytest.mark.timeout(DEADLINE + 180)


def test_two_workers_and_the_scheduler(empty_pg_url: str, tmp_path: Path) -> None:
    with LoopbackWeb(shops(SITES, delayed=3, delay=0.5)) as web:
        env = env_for(empty_pg_url, tmp_path, web)
        migrate = subprocess.run(local("migrate"), env=env, capture_output=True, timeout=180)
        assert migrate.returncode == 0, migrate.stderr
        engine = engine_for(empty_pg_url, tmp_path)
        try:
            run_cluster(web, engine, env, tmp_path)
        finally:
            engine.dispose()


def run_cluster(web: LoopbackWeb, engine: Engine, env: dict[str, str], tmp_path: Path) -> None:
    """The scheduler and two workers; worker a killed with -9 while it crawls."""
    with transaction(engine) as session:  # sites the registry knows, none crawled yet
        make_known(session, {host: f"http://{host}:{web.port}" for host in web.sites})
    logs = {n: tmp_path / f"{n}.log" for n in ("scheduler", "worker-a", "worker-b")}
    with (
        started("scheduler", env, logs["scheduler"]) as scheduler,
        started("worker", env, logs["worker-a"]) as worker_a,
        started("worker", env, logs["worker-b"]) as worker_b,
    ):
        wait_until(
            lambda: crawled(engine) >= 10,
            DEADLINE / 2,
            "10 sites crawled",
            scheduler,
            worker_a,
            worker_b,
        )
        wait_until(
            lambda: crawling_now(logs["worker-a"]),
            60,
            "worker a crawling",
            scheduler,
            worker_a,
            worker_b,
        )
        family = descendants(worker_a.pid)  # its forkserver and crawl children
        worker_a.send_signal(signal.SIGKILL)
        worker_a.wait(timeout=10)
        killed = crawling_now(logs["worker-a"])  # its log is complete now
        # Its jobs that ended as their child stored their site, before the kill ended the
        # child's run (aborted): stored once, by a run that did not finish.
        stored = stored_early(logs["worker-a"])
        assert survivors(family, 10) == [], "the killed worker's children outlived it"
        wait_until(
            lambda: crawled(engine) == SITES, DEADLINE, "every site crawled", scheduler, worker_b
        )
        # the killed children's runs are marked aborted (by the scheduler or a crawl's start)
        wait_until(
            lambda: not running_runs(engine), 30, "abandoned runs swept", scheduler, worker_b
        )
        time.sleep(6)  # a few more scheduler ticks: nothing is crawled twice
        for proc in (worker_b, scheduler):
            proc.send_signal(signal.SIGTERM)
        assert worker_b.wait(timeout=90) == 0, logs["worker-b"].read_text()[-2000:]
        assert scheduler.wait(timeout=90) == 0, logs["scheduler"].read_text()[-2000:]
    assert_crawled_once(web, engine, killed, stored)
    assert_store_consistent(engine, killed)
    said = logs["scheduler"].read_text()
    for host in killed:  # the dead worker's job was found stalled: retried, or ended
        key = f"{host}:{web.port}"  # the site's key: the loopback web is not on port 80
        assert (
            f"({key}) of a dead worker back in the queue" in said
            or f"({key}): another is queued" in said
        ), key


def assert_crawled_once(
    web: LoopbackWeb, engine: Engine, killed: set[str], stored: set[str]
) -> None:
    fetches = robots_fetches(web)
    assert set(fetches) == set(web.sites)
    for host, count in fetches.items():
        # The killed worker's crawls began once before the kill and once on retry.
        assert count == 1 or (host in killed and count == 2), (host, count)
    runs = finished_runs(engine)
    # A site the killed worker's child had stored before the kill is stored, but by a run
    # that ended aborted: its job ended then (``stored``), or was retried and found it no
    # longer due (``killed``).
    unfinished = set(web.sites) - {host for host, *_ in runs}
    assert unfinished <= killed | stored, f"{unfinished - killed - stored}\n{runs_of_all(engine)}"
    twice = sorted({host for host, *_ in runs if sum(h == host for h, *_ in runs) > 1})
    assert not twice, f"in two finished crawl runs: {twice}\n{runs_of_all(engine)}"
    # No host was crawled by two at once: each host's requests (the killed crawl's apart) all
    # fall inside its one finished run.
    offset = time.time() - time.monotonic()
    times = request_times(web)
    for host, start, end, _ in runs:
        if host in killed:
            continue
        assert all(start - 1 <= t + offset <= end + 1 for t in times[host]), host


def assert_store_consistent(engine: Engine, killed: set[str]) -> None:
    with transaction(engine) as session:
        assert session.scalar(select(func.count()).select_from(Site)) == SITES
        per_site = session.execute(
            select(Site.host, func.count(Document.id)).join(Document).group_by(Site.host)
        ).all()
        assert len(per_site) == SITES and all(n == 1 for _, n in per_site), per_site
        actions = session.execute(
            select(ActionRow.site_id, func.count()).group_by(ActionRow.site_id)
        ).all()
        assert len(actions) == SITES and all(n == 1 for _, n in actions)
        jobs = dict(
            session.execute(
                text(
                    "SELECT status, count(*) FROM procrastinate_jobs WHERE task_name = "
                    "'actiondex.crawl_site' GROUP BY status"
                )
            ).all()
        )
    running = running_runs(engine)
    assert running == [], running  # the killed children's runs were marked aborted
    assert "doing" not in jobs, jobs  # the dead worker's jobs were not left behind

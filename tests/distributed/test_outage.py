"""Issue 25.3, the real thing: two workers and the scheduler, started with the commands
docker-compose.yml runs, over loopback sites and a PostgreSQL of the test's own
(tests.helpers.own_pg), which is stopped for 90 s under them mid-crawl, then started again.

Before: the workers and the scheduler exited about 30 s into the outage. Now: they stay up,
each says once that the database went and once that it came back, no traceback, every site is
crawled and stored once, and only a crawl caught running when the database stopped may have
fetched its site twice (its result was spooled, its run swept; the site is either crawled
again or, more often, stored by the replay of the spool at another crawl's start)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from harness.db import engine_for, make_known
from harness.web import LoopbackWeb
from registry.db.engine import transaction
from registry.db.tables import ActionRow, Document, Site
from tests.distributed.cluster import (
    crawl_lines,
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
from tests.distributed.web import robots_fetches, shop
from tests.helpers.own_pg import OwnPostgres

SITES = int(os.environ.get("ACTIONDEX_TEST_OUTAGE_SITES", "12"))
OUTAGE = float(os.environ.get("ACTIONDEX_TEST_OUTAGE_SECONDS", "90"))
DEADLINE = 60 + 8 * SITES
pytestmark = pytest.mark.timeout(int(3 * DEADLINE + OUTAGE + 240))
NAMES = ("scheduler", "worker-a", "worker-b")


def test_workers_and_the_scheduler_outlive_a_stopped_database(tmp_path: Path) -> None:
    # Every site asks for a Crawl-delay: a crawl (~20 requests) lasts long enough to be caught
    # mid-way. Odd shops wait 1 s, even ones 2 s, so crawls end ~20 s apart: with one delay for
    # all, the sites crawled at once ended together and "a crawl running" could wait in vain
    # (CI, 2e0ceb5).
    sites = {f"shop{n}.test": shop(n, 1 if n % 2 else 2) for n in range(SITES)}
    with OwnPostgres() as pg, LoopbackWeb(sites) as web:
        env = env_for(pg.url, tmp_path, web)
        migrate = subprocess.run(local("migrate"), env=env, capture_output=True, timeout=180)
        assert migrate.returncode == 0, migrate.stderr
        engine = engine_for(pg.url, tmp_path)
        try:
            in_flight = run_through_outage(pg, web, engine, env, tmp_path)
            stored = set().union(*(stored_early(tmp_path / f"{n}.log") for n in NAMES[1:]))
            assert_every_site_once(web, engine, in_flight, stored)
        finally:
            engine.dispose()
    for name in NAMES:
        assert_one_line_per_state_change((tmp_path / f"{name}.log").read_text(), name)


def run_through_outage(
    pg: OwnPostgres, web: LoopbackWeb, engine: Engine, env: dict[str, str], tmp_path: Path
) -> set[str]:
    """The cluster; PostgreSQL stopped once some sites are crawled and others are crawling.
    Returns the hosts being crawled when it stopped."""
    with transaction(engine) as session:
        make_known(session, {host: f"http://{host}:{web.port}" for host in web.sites})
    logs = {n: tmp_path / f"{n}.log" for n in NAMES}
    with (
        started("scheduler", env, logs["scheduler"]) as scheduler,
        started("worker", env, logs["worker-a"]) as worker_a,
        started("worker", env, logs["worker-b"]) as worker_b,
    ):
        procs = (scheduler, worker_a, worker_b)
        wait_until(lambda: crawled(engine) >= 2, DEADLINE, "2 sites crawled", *procs)
        wait_until(
            lambda: crawling_now(logs["worker-a"]) | crawling_now(logs["worker-b"]),
            60,
            "a crawl running",
            *procs,
        )
        pg.stop()
        # Finished before the stop: their runs were recorded. Any other crawl begun by the
        # time the database is back was caught by the stop (a job fetched just before it may
        # log its first line a moment after, so the begun side is read at the restart). A
        # crawl the stop failed logs its end at once, with its exit code: it is not finished.
        ended = set().union(*(crawl_lines(logs[n], ok_only=True)[1] for n in NAMES[1:]))
        down_until = time.monotonic() + OUTAGE
        while time.monotonic() < down_until:  # they must stay up all along
            for proc in procs:
                assert proc.poll() is None, f"{proc.args} exited with {proc.returncode}"
            time.sleep(1)
        in_flight = set().union(*(crawl_lines(logs[n])[0] for n in NAMES[1:])) - ended
        pg.start()
        wait_until(lambda: crawled(engine) == SITES, DEADLINE, "every site crawled", *procs)
        wait_until(lambda: not running_runs(engine), DEADLINE, "abandoned runs swept", *procs)
        time.sleep(6)  # a few more scheduler ticks: nothing is crawled twice
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for name, proc in zip(NAMES, procs, strict=True):
            assert proc.wait(timeout=90) == 0, logs[name].read_text()[-3000:]
    return in_flight


def assert_every_site_once(
    web: LoopbackWeb, engine: Engine, in_flight: set[str], stored: set[str]
) -> None:
    fetches = robots_fetches(web)
    assert set(fetches) == set(web.sites)
    for host, count in fetches.items():
        assert count == 1 or (host in in_flight and count == 2), (host, count, in_flight)
    # A crawl caught by the stop spooled its site; a later crawl's start replayed it (so no
    # run of its own finished): stored all the same, below. A site its child reported stored
    # before the stop was stored by a run the stop kept from finishing.
    finished = {host for host, *_ in finished_runs(engine)}
    unfinished = set(web.sites) - finished
    assert unfinished <= in_flight | stored, (
        f"{unfinished} not in {in_flight} | {stored}\n{runs_of_all(engine)}"
    )
    with transaction(engine) as session:
        assert session.scalar(select(func.count()).select_from(Site)) == SITES
        per_site = session.execute(
            select(Site.host, func.count(Document.id)).join(Document).group_by(Site.host)
        ).all()
        assert len(per_site) == SITES and all(n == 1 for _, n in per_site), per_site
        actions = session.execute(
            select(ActionRow.site_id, func.count()).group_by(ActionRow.site_id)
        ).all()
        assert len(actions) == SITES and all(n == 1 for _, n in actions), actions


def assert_one_line_per_state_change(log: str, name: str) -> None:
    assert "Traceback" not in log, f"{name}:\n{log[-3000:]}"
    went = re.findall(r"database unreachable, waiting \((.+)\)", log)
    back = re.findall(r"database back after (\d+) s", log)
    assert len(went) == 1 and len(back) == 1, f"{name}:\n{log[-3000:]}"
    assert went[0] != "Database error.", went  # the driver's reason, not the wrapper's
    assert OUTAGE - 5 <= int(back[0]) <= OUTAGE + 45, (name, back)  # noticed within a backoff

"""A crawl run is never left `running`: a crawl killed with SIGKILL is swept to `aborted` by
the next crawl; a crawl sent SIGTERM records itself `aborted`. Real processes, a slow
loopback site, SQLite and PostgreSQL."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from actiondex.demo.web import DemoWeb
from registry.db.tables import CrawlRun
from registry.model.urls import key_host
from tests.helpers.crawls import actiondex, command, crawl_args, crawl_env, small_web, store_engine

pytestmark = pytest.mark.timeout(300)
SLOW = 15.0  # seconds the slow site waits before each answer: the crawl is surely mid-way


def runs(db_url: str) -> list[CrawlRun]:
    engine = store_engine(db_url)
    with Session(engine) as session:
        found = list(session.scalars(select(CrawlRun).order_by(CrawlRun.id)))
    engine.dispose()
    return found


def start_slow_crawl(
    tmp_path: Path, db_url: str, web: DemoWeb, until: str = "starting"
) -> subprocess.Popen[str]:
    """A crawl of slow.test in the background, once its run is recorded `running` (and with
    ``until="fetching"``, once slow.test has been asked for something)."""
    proc = subprocess.Popen(
        command(*crawl_args(web), f"http://slow.test:{web.port}/"),
        env=crawl_env(tmp_path, db_url),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not any(r.status == "running" for r in runs(db_url)) or (
        until == "fetching" and not web.requests("slow.test")
    ):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"the crawl never got {until}"
        time.sleep(0.1)
    return proc


def test_a_crawl_killed_with_sigkill_is_swept_to_aborted_by_the_next_crawl(
    tmp_path: Path, empty_db_url: str
) -> None:
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    with small_web(
        tmp_path / "sites", ("slow.test", "quick.test"), delays={"slow.test": SLOW}
    ) as web:
        proc = start_slow_crawl(tmp_path, empty_db_url, web, "fetching")
        deadline = time.monotonic() + 20
        while (beat := runs(empty_db_url)[0]).heartbeat_at - beat.started_at < timedelta(
            seconds=1
        ):  # the timer beats while the spider waits on slow.test
            assert time.monotonic() < deadline, "the heartbeat never moved"
            time.sleep(0.2)
        proc.kill()
        proc.communicate(timeout=30)
        [killed] = runs(empty_db_url)
        assert killed.status == "running" and killed.finished_at is None  # left behind
        assert killed.owner is not None and killed.owner.endswith(f":{proc.pid}")

        after = actiondex(
            tmp_path, empty_db_url, *crawl_args(web, f"http://quick.test:{web.port}/")
        )
    assert after.returncode == 0, after.stdout + after.stderr
    swept, new = runs(empty_db_url)
    assert (swept.id, swept.status) == (killed.id, "aborted")
    assert swept.stats["aborted"] == "owner process gone" and swept.finished_at is not None
    assert new.status == "finished"


@pytest.mark.parametrize("when", ["starting", "fetching"])  # Scrapy's handler, or ours
def test_a_crawl_sent_sigterm_ends_aborted(tmp_path: Path, empty_db_url: str, when: str) -> None:
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    with small_web(tmp_path / "sites", ("slow.test",), delays={"slow.test": SLOW}) as web:
        proc = start_slow_crawl(tmp_path, empty_db_url, web, when)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=SLOW + 30)
        took = time.monotonic() - started
    assert proc.returncode == 143, out + err
    error = json.loads(out)["error"]  # --json: one error object, no traceback
    assert error["code"] == "aborted", error
    assert "Traceback" not in err, err  # whole, for a rare one seen once in CI
    [run] = runs(empty_db_url)
    assert run.status == "aborted" and run.finished_at is not None
    # The summary was recorded; once fetching, slow.test is in it as crawl-incomplete (a
    # signal before the spider ran stops the crawl before any site is in it).
    assert run.stats["sites"] == (1 if when == "fetching" else run.stats["sites"])
    errors = {key_host(host): codes for host, codes in run.stats["site_errors"].items()}
    assert errors == ({"slow.test": ["crawl-incomplete"]} if run.stats["sites"] else {})
    print(f"SIGTERM ({when}) to an aborted run: {took:.1f} s")

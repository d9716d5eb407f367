"""The recrawl schedule through real loopback crawls (`python -m actiondex crawl`), on SQLite
and PostgreSQL: each promotion schedules the site in its own transaction."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from actiondex.demo.web import DemoWeb
from harness.procs import free_port
from registry.db.tables import Site
from registry.model.urls import key_host
from registry.store.rows import utcnow
from registry.store.schedule import jitter
from tests.helpers.crawls import actiondex, crawl_args, small_web, store_engine

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[DemoWeb]:
    """Two small sites on loopback that publish one action each."""
    with small_web(tmp_path / "sites", ("good.test", "other.test")) as served:
        yield served


def schedule(db_url: str) -> dict[str, dict[str, Any]]:
    engine = store_engine(db_url)
    with Session(engine) as session:
        rows = {
            key_host(s.host): {
                "next": s.next_crawl_at,
                "interval": s.crawl_interval,
                "failures": s.crawl_failures,
                "last": s.last_crawled_at,
            }
            for s in session.scalars(select(Site))
        }
    engine.dispose()
    return rows


def set_next(db_url: str, host: str, when: datetime) -> None:
    engine = store_engine(db_url)
    with Session(engine) as session, session.begin():
        key = Site.host.startswith(f"{host}:")  # the loopback port is part of the site key
        session.execute(update(Site).where(key).values(next_crawl_at=when))
    engine.dispose()


def test_a_crawl_schedules_each_site_by_its_outcome(
    web: DemoWeb, tmp_path: Path, empty_db_url: str
) -> None:
    port = free_port()
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    before = utcnow()
    proc = actiondex(
        tmp_path,
        empty_db_url,
        *crawl_args(
            web,
            f"http://good.test:{web.port}/",
            f"http://dead.test:{port}/",
            "--resolve",
            f"dead.test:{port}:127.0.0.1",
        ),
    )
    after = utcnow()
    assert json.loads(proc.stdout).get("sites") == 2, proc.stdout + proc.stderr
    rows = schedule(empty_db_url)
    good, dead = rows["good.test"], rows["dead.test"]
    assert good["interval"] == 7200 and good["failures"] == 0  # a first crawl: INITIAL
    assert before <= good["last"] <= after
    wait = (good["next"] - good["last"]).total_seconds()
    assert wait == pytest.approx(7200 * (1 - jitter(f"good.test:{web.port}")), abs=0.01)
    assert dead["failures"] == 1 and dead["interval"] == 7200
    assert (dead["next"] - dead["last"]) <= timedelta(seconds=600)  # backs off from MIN


def crawled(proc: subprocess.CompletedProcess[str]) -> list[str]:
    data = json.loads(proc.stdout)
    return sorted(key_host(row["host"]) for row in data.get("per_site", []))


def test_crawl_due_crawls_the_due_sites_and_not_the_fresh_ones(
    web: DemoWeb, tmp_path: Path, empty_db_url: str
) -> None:
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    first = actiondex(
        tmp_path,
        empty_db_url,
        *crawl_args(web, *(f"http://{host}:{web.port}/" for host in ("good.test", "other.test"))),
    )
    assert crawled(first) == ["good.test", "other.test"], first.stderr
    set_next(empty_db_url, "good.test", utcnow() - timedelta(minutes=5))
    asked = len(web.requests())

    due = actiondex(tmp_path, empty_db_url, *crawl_args(web, "--due"))

    assert due.returncode == 0, due.stdout + due.stderr
    assert crawled(due) == ["good.test"] and json.loads(due.stdout)["due"] == 1
    hosts = {host for host, _path in web.requests()[asked:]}
    assert hosts == {"good.test"}  # the fresh site was not asked anything
    rows = schedule(empty_db_url)
    assert rows["good.test"]["next"] > utcnow() + timedelta(minutes=30)  # rescheduled
    assert rows["good.test"]["interval"] == 7200 * 1.5  # unchanged: later

    # With TARGETs: only those of them that are due (good.test is not due any more).
    set_next(empty_db_url, "other.test", utcnow() - timedelta(minutes=1))
    named = actiondex(
        tmp_path,
        empty_db_url,
        *crawl_args(web, "--due", f"http://good.test:{web.port}/", f"other.test:{web.port}"),
    )
    assert crawled(named) == ["other.test"], named.stdout + named.stderr


def test_crawl_due_with_nothing_due_exits_0_with_one_line(
    tmp_path: Path, empty_db_url: str
) -> None:
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    plain = actiondex(tmp_path, empty_db_url, "crawl", "--due", timeout=60)
    assert plain.returncode == 0 and plain.stdout == ""
    assert plain.stderr.strip().splitlines() == ["nothing is due for a crawl"]
    as_json = actiondex(tmp_path, empty_db_url, "crawl", "--due", "--json", "x.example", timeout=60)
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert (data["sites"], data["due"], data["per_site"]) == (0, 0, [])


def test_crawl_limit_without_due_is_bad_input(tmp_path: Path) -> None:
    proc = actiondex(tmp_path, "", "crawl", "--json", "--limit", "3", "x.example", timeout=60)
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["message"].startswith("--limit goes with --due")

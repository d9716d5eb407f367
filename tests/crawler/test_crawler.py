"""End-to-end crawls on loopback through `python -m actiondex crawl`, the real entry point.

Every test talks to 127.0.0.x / ::1 only, bounds each crawl with a timeout, and proves the
SSRF guard with canary listeners that count the connections they accept.
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from actiondex.demo.web import SITES, DemoWeb
from harness.db import fresh_pg_database
from harness.procs import AX, env_for, free_port
from registry.db.tables import ActionRow, FlowRow, Site
from registry.model.urls import key_host
from tests.hostile.canary import Canary

CRAWL_TIMEOUT = 120
WELL_KNOWN = "/.well-known/agent-actions.json"
pytestmark = pytest.mark.timeout(300)


def cli(data_dir: Path, *args: str, db_url: str = "") -> tuple[list[str], dict[str, str]]:
    return [*AX, *args], env_for(data_dir, db_url)


def crawl(
    data_dir: Path,
    web: DemoWeb | None,
    *targets: str,
    db_url: str = "",
    resolve: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    entries = [*(web.resolve_args() if web else []), *resolve]
    flags = [arg for entry in entries for arg in ("--resolve", entry)]
    cmd, env = cli(data_dir, "crawl", "--json", "--delay", "0", *flags, *targets, db_url=db_url)
    return subprocess.run(cmd, env=env, text=True, capture_output=True, timeout=CRAWL_TIMEOUT)


def targets(web: DemoWeb) -> list[str]:
    return [f"http://{host}:{web.port}/" for host in web.hosts]


def per_site(proc: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    assert proc.stdout.strip(), proc.stderr
    # The site key's port dropped: the demo web serves every host on one loopback port.
    return {key_host(row["host"]): row for row in json.loads(proc.stdout)["per_site"]}


def db_url_of(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'actiondex.db'}"


def stored(url: str) -> dict[str, set[tuple[Any, ...]]]:
    """host -> every action and flow row, as comparable tuples (ids are stable hashes)."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    rows: dict[str, set[tuple[Any, ...]]] = {}
    with Session(engine) as session:
        actions = select(Site.host, ActionRow).join_from(ActionRow, Site)
        for host, action in session.execute(actions):
            rows.setdefault(key_host(host), set()).add(
                (
                    "action",
                    action.id,
                    action.name,
                    action.title,
                    action.effect,
                    action.method,
                    action.endpoint,
                    json.dumps(action.input_schema, sort_keys=True),
                )
            )
        for host, flow in session.execute(select(Site.host, FlowRow).join_from(FlowRow, Site)):
            rows.setdefault(key_host(host), set()).add(
                ("flow", flow.id, flow.name, json.dumps(flow.steps, sort_keys=True))
            )
    engine.dispose()
    return rows


def published_names(host: str) -> set[str]:
    """Action names the site's agent-actions.json declares (the demo content's ground truth)."""
    path = SITES / host / WELL_KNOWN.lstrip("/")
    if not path.is_file():
        return set()
    actions = json.loads(path.read_text(encoding="utf-8")).get("actions") or []
    return {a["name"] for a in actions if isinstance(a, dict) and "name" in a}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One crawl of the whole demo web; redirect.demo.test's redirects point at canaries."""
    data_dir = tmp_path_factory.mktemp("demo")
    redirects = json.loads((SITES / "redirect.demo.test" / "_redirects.json").read_text())
    with Canary("127.0.0.2") as v4, Canary("::1") as v6:
        traps = {path: f"http://127.0.0.2:{v4.port}/steal" for path in [*redirects, WELL_KNOWN]}
        traps["/.well-known/agents.json"] = f"http://[::1]:{v6.port}/steal"
        with DemoWeb(overrides={"redirect.demo.test": traps}) as web:
            started = time.monotonic()
            proc = crawl(data_dir, web, *targets(web))
            seconds = time.monotonic() - started
            log = web.requests()
        return {
            "proc": proc,
            "sites": per_site(proc),
            "log": log,
            "hosts": web.hosts,
            "canaries": (v4.count, v6.count),
            "store": stored(db_url_of(data_dir)),
            "seconds": seconds,
        }


def test_every_demo_site_lands_in_the_store(demo: dict[str, Any]) -> None:
    assert set(demo["sites"]) == set(demo["hosts"])
    for host in demo["hosts"]:
        names = {row[2] for row in demo["store"].get(host, set()) if row[0] == "action"}
        assert names, f"{host}: no actions stored; {demo['sites'][host]}"
        if host != "bikes.demo.test":
            assert published_names(host) <= names, host
    print(f"demo web crawl: {len(demo['hosts'])} sites in {demo['seconds']:.1f} s")


def test_robots_disallowed_file_is_never_requested(demo: dict[str, Any]) -> None:
    bikes = [path for host, path in demo["log"] if host == "bikes.demo.test"]
    assert "/robots.txt" in bikes and WELL_KNOWN not in bikes
    assert (SITES / "bikes.demo.test" / WELL_KNOWN.lstrip("/")).is_file()  # it is there


def test_redirect_to_loopback_never_connects(demo: dict[str, Any]) -> None:
    assert demo["canaries"] == (0, 0)
    assert json.loads(demo["proc"].stdout)["refused"] == 2  # both hops refused by the middleware
    assert ("redirect.demo.test", WELL_KNOWN) in demo["log"]  # the redirect was really served
    assert "blocked-address" in demo["sites"]["redirect.demo.test"]["errors"]


def test_refused_targets_exit_with_one_line_reason(tmp_path: Path) -> None:
    with Canary("127.0.0.1") as canary:
        cmd, env = cli(tmp_path, "crawl", "http://127.0.0.1:9/", f"http://127.0.0.1:{canary.port}/")
        proc = subprocess.run(cmd, env=env, text=True, capture_output=True, timeout=60)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "127.0.0.1" in lines[0] and "non-public" in lines[0], proc.stderr
    assert canary.count == 0


@pytest.mark.parametrize("target", ["localhost", "http://127.0.0.1:9/", "not a url!!"])
def test_loopback_names_and_addresses_and_junk_are_refused_alike(
    tmp_path: Path, target: str
) -> None:
    # A name resolving to loopback that is no localhost name is refused at connect time:
    # test_crawler_hostile.py's rebinding test shows it (canary: 0 connections).
    cmd, env = cli(tmp_path, "crawl", target)
    proc = subprocess.run(cmd, env=env, text=True, capture_output=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert len(lines) == 1 and lines[0].startswith("actiondex: error: "), proc.stderr
    assert "refused" in lines[0] or "not a domain" in lines[0]
    assert not (tmp_path / "actiondex.db").exists()  # checked before the store is opened


def test_hostile_redirects_and_sizes(tmp_path: Path) -> None:
    root = tmp_path / "sites"
    hops = {f"/r{i}": f"/r{i + 1}" for i in range(1, 8)}
    for host, redirects in {
        "loop.test": {WELL_KNOWN: "/r1", **hops},
        "big.test": {},
        "hop.test": {},
        "good.test": {},
    }.items():
        (root / host / ".well-known").mkdir(parents=True)
        (root / host / "_redirects.json").write_text(json.dumps(redirects))
    (root / "big.test" / WELL_KNOWN.lstrip("/")).write_bytes(b" " * (1024 * 1024 + 10))
    (root / "good.test" / "a.json").write_text('{"actions": []}')
    dead = free_port()  # a loopback port where nothing listens
    with DemoWeb(root=root) as web:
        web.overrides["hop.test"] = {WELL_KNOWN: f"http://good.test:{web.port}/a.json"}
        sites = per_site(
            crawl(
                tmp_path / "data",
                web,
                *targets(web),
                f"http://dead.test:{dead}/",
                resolve=(f"dead.test:{dead}:127.0.0.1",),
            )
        )
        log = web.requests()
    # the cause, not only that robots.txt was unavailable; and so nothing else was asked
    assert sites["dead.test"]["errors"] == ["connection-refused"]
    assert "too-many-redirects" in sites["loop.test"]["errors"]
    assert len([p for h, p in log if h == "loop.test" and p in hops]) == 5  # REDIRECT_MAX_TIMES
    assert "too-large" in sites["big.test"]["errors"]
    assert ("good.test", "/a.json") in log  # an allowed cross-host hop is followed


def test_demo_web_serves_files_by_host_and_nothing_outside(tmp_path: Path) -> None:
    site = tmp_path / "a.test" / ".well-known"
    site.mkdir(parents=True)
    (site / "api-catalog").write_text("{}")
    (site.parent / "index.html").write_text("<html></html>")
    (site.parent / "_redirects.json").write_text('{"/old": "/"}')
    (tmp_path / "secret.txt").write_text("secret")
    with DemoWeb(root=tmp_path, delays={"a.test": 0.1}) as web:

        def get(path: str, host: str = "a.test") -> tuple[int, str, str]:
            conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=5)
            conn.request("GET", path, headers={"Host": f"{host}:{web.port}"})
            resp = conn.getresponse()
            result = resp.status, resp.getheader("Content-Type") or "", resp.getheader("Location")
            conn.close()
            return result  # type: ignore[return-value]

        started = time.monotonic()
        assert get("/")[:2] == (200, "text/html; charset=utf-8")
        assert time.monotonic() - started >= 0.1
        assert get("/.well-known/api-catalog")[:2] == (200, "application/json")
        assert get("/old") == (302, "text/plain", "/")
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/_redirects.json", "/nope"):
            assert get(path)[0] == 404, path
        assert get("/", host="other.test")[0] == 404
        assert web.resolve_args() == [f"a.test:{web.port}:127.0.0.1"]
        assert web.requests("a.test")[0] == ("a.test", "/")


def test_killed_crawl_leaves_whole_sites_and_rerun_converges(tmp_path: Path) -> None:
    """kill -9 while a slow site is mid-fetch: each site is whole or absent; a rerun converges."""
    slow = "travel.demo.test"
    with DemoWeb() as web:
        baseline = tmp_path / "baseline"
        crawl(baseline, web, *targets(web))
        # Slow only for the crawl that gets killed: its robots.txt alone takes 20 s (within the
        # 30 s request timeout; the 3 s probes after it time out sooner), so the other sites
        # have ~25 s to be stored while it is still being fetched, on a loaded machine too.
        web.delays[slow] = 20.0
        killed = tmp_path / "killed"
        cmd, env = cli(
            killed,
            "crawl",
            "--json",
            *[a for e in web.resolve_args() for a in ("--resolve", e)],
            *targets(web),
        )
        seen = len(web.requests(slow))
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for_some_sites(db_url_of(killed), lambda: len(web.requests(slow)) - seen)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            web.delays.clear()
        expected, partial = stored(db_url_of(baseline)), stored(db_url_of(killed))
        assert set(expected) == set(web.hosts)
        assert partial and slow not in partial
        for host, rows in partial.items():
            assert rows == expected[host], f"{host} is half promoted"
        rerun = crawl(killed, web, *targets(web))
    assert stored(db_url_of(killed)) == expected, rerun.stderr


def _wait_for_some_sites(url: str, slow_requests: Callable[[], int], limit: float = 45) -> None:
    """Until some site is stored while the slow site still has requests to make (4 in all)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if stored(url) and slow_requests() < 4:
                return
        except OperationalError:
            pass  # the crawl has not made its tables yet
        time.sleep(0.1)
    pytest.fail("no site was stored while the slow site was still being fetched")


def test_crawl_into_postgresql(tmp_path: Path, demo: dict[str, Any]) -> None:
    # The harness makes the database from ACTIONDEX_TEST_DATABASE_URL in either form
    # (`postgresql://` or SQLAlchemy's `postgresql+psycopg://`, which psycopg itself refuses).
    with fresh_pg_database("actiondex_crawl_test") as url:
        cmd, env = cli(tmp_path, "migrate", db_url=url)
        subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=60)
        with DemoWeb() as web:
            proc = crawl(tmp_path, web, *targets(web), db_url=url)
        assert set(per_site(proc)) == set(demo["hosts"])
        names = {h: {r[2] for r in rows} for h, rows in stored(url).items()}
        assert names == {h: {r[2] for r in rows} for h, rows in demo["store"].items()}

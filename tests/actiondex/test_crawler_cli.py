"""`actiondex crawl` as a new user meets it: one engine per process, refusals and database
failures as one line (or one JSON object with --json), the address policy from the
environment. Crawls run in subprocesses against loopback servers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from harness.procs import env_for, free_port
from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, Site, json_reply
from registry.db.tables import CrawlRun
from registry.db.tables import Site as SiteRow
from tests.helpers.paths import ROOT
from tests.hostile.dbproxy import CuttableProxy

pytestmark = pytest.mark.timeout(300)
MANIFEST = "/.well-known/agent-actions.json"


def run(
    data_dir: Path, *args: str, module: str = "actiondex", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        env=env_for(data_dir, **env),
        text=True,
        capture_output=True,
        timeout=240,
        cwd=ROOT,
    )


def one_json_error(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout + proc.stderr
    body = json.loads(lines[0])
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    return dict(body["error"])


def _sites() -> dict[str, Site]:
    return {
        f"{name}.test": Site({MANIFEST: json_reply(agent_actions(name))})
        for name in ("alpha", "beta")
    }


def test_a_crawl_uses_one_database_engine(tmp_path: Path) -> None:
    with LoopbackWeb(_sites()) as web:
        flags = [a for e in web.resolve_args() for a in ("--resolve", e)]
        proc = run(
            tmp_path,
            "crawl",
            "--json",
            "--delay",
            "0",
            *flags,
            web.url("alpha.test"),
            web.url("beta.test"),
            module="tests.hostile.count_engines",
        )
    assert json.loads(proc.stdout)["actions"] == 2, proc.stderr
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == {"created": 1, "connected": 1}


@pytest.mark.parametrize("target", ["localhost", "http://127.0.0.1:9/", "not a url!!"])
def test_a_refused_target_with_json_is_one_error_object(tmp_path: Path, target: str) -> None:
    proc = run(tmp_path, "crawl", "--json", target)
    assert proc.returncode == 2 and proc.stderr == ""
    error = one_json_error(proc)
    assert error["code"] == "refused"
    assert "refused" in error["message"] or "not a domain" in error["message"]


def test_a_database_that_is_down_with_json_is_one_error_object(tmp_path: Path) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/nothing"
    proc = run(tmp_path, "crawl", "--json", "shop.example", ACTIONDEX_DATABASE_URL=url)
    assert proc.returncode == 2, proc.stderr
    error = one_json_error(proc)
    assert error["code"] == "database-unavailable" and "database" in error["message"]


def _cut_while_served(proxy: CuttableProxy) -> Iterator[bytes]:
    proxy.cut()  # and never restored: the crawl must end without its database
    yield agent_actions("gone").encode()


def test_a_database_that_goes_away_mid_crawl_with_json_is_one_error_object(
    tmp_path: Path,
    empty_pg_url: str,
) -> None:
    pg = make_url(empty_pg_url)
    with CuttableProxy((pg.host or "127.0.0.1", pg.port or 5432)) as proxy:
        url = pg.set(port=proxy.port).render_as_string(hide_password=False)
        assert run(tmp_path, "migrate", ACTIONDEX_DATABASE_URL=url).returncode == 0
        site = Site(
            {
                MANIFEST: Reply(
                    body=lambda: _cut_while_served(proxy),
                    headers={"Content-Type": "application/json"},
                )
            }
        )
        with LoopbackWeb({"gone.test": site}) as web:
            proc = run(
                tmp_path,
                "crawl",
                "--json",
                "--delay",
                "0",
                "--resolve",
                web.resolve_args()[0],
                web.url("gone.test"),
                ACTIONDEX_DATABASE_URL=url,
            )
    assert proc.returncode == 2, proc.stderr
    error = one_json_error(proc)
    assert error["code"] == "database-unavailable"
    assert "1 of 1 sites wait in" in error["message"], error
    assert len(list((tmp_path / "spool").glob("*.json"))) == 1  # kept for the next crawl


def test_the_address_policy_comes_from_the_environment(tmp_path: Path) -> None:
    with LoopbackWeb(_sites()) as web:
        entries = " ".join(web.resolve_args())
        proc = run(
            tmp_path,
            "crawl",
            "--json",
            "--delay",
            "0",
            web.url("alpha.test"),
            ACTIONDEX_RESOLVE=entries,
        )
        bad = run(tmp_path, "crawl", web.url("alpha.test"), ACTIONDEX_RESOLVE="nonsense")
    assert json.loads(proc.stdout)["actions"] == 1, proc.stderr
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "actiondex: error: ACTIONDEX_RESOLVE 'nonsense': expected HOST:PORT:ADDR, "
        "e.g. a.test:443:127.0.0.1"
    )


def test_a_host_that_does_not_resolve_says_so_in_the_summary_and_the_run(tmp_path: Path) -> None:
    # .invalid never resolves (RFC 6761); robots.txt is the request that meets it first.
    proc = run(tmp_path, "crawl", "--json", "--delay", "0", "https://nx.invalid/")
    rows = {row["host"]: row for row in json.loads(proc.stdout)["per_site"]}
    assert rows["nx.invalid"]["errors"] == ["dns-error"], proc.stderr
    engine = create_engine(f"sqlite:///{tmp_path / 'actiondex.db'}")
    with Session(engine) as session:
        run_stats = session.scalars(select(CrawlRun.stats)).one()
        last_error = session.scalars(select(SiteRow.last_error)).one()
    engine.dispose()
    assert run_stats["site_errors"] == {"nx.invalid": ["dns-error"]}
    assert last_error and "could not resolve host nx.invalid" in last_error

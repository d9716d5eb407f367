"""The database goes away mid-crawl (docs/RELIABILITY.md 1.6, 37): a site stored while PostgreSQL
is unreachable is spooled, not lost, and promoted when the database is back; nothing is ever
half-written; an outdated spooled crawl never overwrites a newer one."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, func, select, text
from sqlalchemy.engine import make_url

from crawler.pipelines import StorePipeline
from crawler.sitestate import SiteResult
from crawler.spool import Spool
from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, json_reply
from harness.web import Site as WebSite
from registry.config import Settings
from registry.db.engine import make_engine, migrate, transaction
from registry.db.tables import ActionRow, Site
from registry.model.schemas import RawDocument
from registry.model.urls import key_host
from tests.hostile.dbproxy import CuttableProxy
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(300)
MANIFEST = "/.well-known/agent-actions.json"


def _manifest(name: str, n: int = 3) -> bytes:
    data = json.loads(agent_actions(name))
    data["actions"] = [{**data["actions"][0], "name": f"{name}_{i}"} for i in range(n)]
    return json.dumps(data).encode()


def _after_restore(proxy: CuttableProxy) -> Iterator[bytes]:
    """A home page served once the database is back (or after 20 s, within the crawler's 30 s
    page timeout), so the crawl outlasts the outage and its end can store what was spooled.
    (A manifest cannot wait so long: well-known paths get 3 s, and a loaded machine served
    one before the outage had even begun.)"""
    proxy.restored.wait(20)
    time.sleep(0.3)
    yield b"<!doctype html><title>late</title><p>Back again."


def _outage_starts(proxy: CuttableProxy, spool: Path) -> Iterator[bytes]:
    """A manifest reply that cuts the database as it is served; the database comes back once
    the crawler has spooled a site (its one retry failed too), or after 60 s."""

    def restore_when_spooled() -> None:
        deadline = time.monotonic() + 60
        while not list(spool.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.02)
        proxy.restore()

    proxy.cut()
    threading.Thread(target=restore_when_spooled, daemon=True).start()
    yield _manifest("during")


@pytest.fixture
def pg_via_proxy(empty_pg_url: str) -> Iterator[tuple[str, CuttableProxy]]:
    url = make_url(empty_pg_url)
    with CuttableProxy((url.host or "127.0.0.1", url.port or 5432)) as proxy:
        yield url.set(port=proxy.port).render_as_string(hide_password=False), proxy


def test_a_site_stored_during_an_outage_is_spooled_then_promoted(
    tmp_path: Path,
    pg_via_proxy: tuple[str, CuttableProxy],
) -> None:
    db_url, proxy = pg_via_proxy
    engine = make_engine(Settings(data_dir=tmp_path, database_url=db_url))
    migrate(engine)
    engine.dispose()
    sites = {
        "before.test": WebSite({MANIFEST: json_reply(_manifest("before"))}),
        "during.test": WebSite(
            {
                MANIFEST: Reply(
                    body=lambda: _outage_starts(proxy, tmp_path / "spool"),
                    headers={"Content-Type": "application/json"},
                )
            }
        ),
        "late.test": WebSite(
            {
                MANIFEST: json_reply(_manifest("late")),
                "/": Reply(
                    body=lambda: _after_restore(proxy),
                    headers={"Content-Type": "text/html; charset=utf-8"},
                ),
            }
        ),
    }
    with LoopbackWeb(sites) as web:
        summary = crawl(
            tmp_path,
            web,
            *(web.url(h) for h in sites),
            env={"ACTIONDEX_DATABASE_URL": db_url, "ACTIONDEX_REQUEST_TIMEOUT": "30"},
        )

    assert proxy.refused > 0  # the database really was away for somebody
    # Which site met the outage depends on timing (the one being stored as it began); it
    # was spooled and stored from the spool at the end of the run.
    assert summary["replayed"], summary["per_site"]
    assert all(not row["errors"] for row in summary["per_site"].values()), summary["per_site"]
    engine = create_engine(db_url)
    with engine.connect() as conn:
        stored = {
            key_host(host): n
            for host, n in conn.execute(
                select(Site.host, func.count(ActionRow.id))
                .join_from(Site, ActionRow)
                .group_by(Site.host)
            )
        }
        # The spooled site was scheduled when it was replayed, as the others at promotion.
        scheduled = {
            key_host(host)
            for host, due in conn.execute(select(Site.host, Site.next_crawl_at))
            if due is not None
        }
    engine.dispose()
    assert stored == {"before.test": 3, "during.test": 3, "late.test": 3}
    assert scheduled == set(stored)
    assert Spool(tmp_path / "spool").waiting() == []


def _result(host: str, names: list[str]) -> SiteResult:
    body = json.dumps(
        {"schema": "agent-actions/0.1", "actions": [{"name": n, "path": f"/{n}"} for n in names]}
    ).encode()
    return SiteResult(
        host=host,
        origin=f"https://{host}",
        documents=[
            RawDocument(url=f"https://{host}{MANIFEST}", body=body, content_type="application/json")
        ],
    )


def test_replay_drops_an_outdated_result_and_sets_aside_a_damaged_file(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    engine = make_engine(settings)
    migrate(engine)
    store = StorePipeline.from_settings(settings, engine)
    store.spool.put(_result("shop.test", ["old_action"]))  # spooled first...
    (store.spool.folder / f"{time.time_ns()}-broken.test.json").write_text("{not json")
    time.sleep(0.01)
    assert store.promote(_result("shop.test", ["new_action"])).changed  # ...then a newer crawl
    store.spool.put(_result("cafe.test", ["eclair"]))

    rows = store.replay()

    assert [(r.host, r.errors) for r in rows] == [
        ("shop.test", ["spool-outdated"]),
        ("cafe.test", []),
    ]
    with transaction(store.engine) as session:
        names = dict(session.execute(select(ActionRow.name, Site.host).join(Site)).all())
    assert names == {"new_action": "shop.test", "eclair": "cafe.test"}, names
    assert store.spool.waiting() == []
    assert [p.suffix for p in store.spool.folder.iterdir()] == [".bad"]
    store.engine.dispose()


def test_a_file_another_crawl_replayed_meanwhile_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two crawls starting at once on one data dir (two workers' children after an outage)
    both list the spool; the first to reach a file replays and removes it. The other once
    failed its whole crawl on the missing file ("cannot use ...: No such file")."""
    settings = Settings(data_dir=tmp_path)
    engine = make_engine(settings)
    migrate(engine)
    store = StorePipeline.from_settings(settings, engine)
    gone = store.spool.put(_result("shop.test", ["listed"]))
    store.spool.put(_result("cafe.test", ["eclair"]))
    listed = store.spool.waiting()
    gone.unlink()  # the other crawl replayed it between our listing and our read
    monkeypatch.setattr(store.spool, "waiting", lambda: listed)

    rows = store.replay()

    assert [r.host for r in rows] == ["cafe.test"]
    assert list(store.spool.folder.iterdir()) == []  # nothing set aside: nothing was damaged
    store.engine.dispose()


def test_a_backend_killed_mid_promotion_rolls_back_and_is_retried_once(
    tmp_path: Path,
    empty_pg_url: str,
) -> None:
    """docs/RELIABILITY.md 37(b): pg_terminate_backend while a site's actions are being written."""
    settings = Settings(data_dir=tmp_path, database_url=empty_pg_url)
    store = StorePipeline.from_settings(settings, make_engine(settings))
    migrate(store.engine)
    kills: list[int] = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def kill_first_insert(conn, cursor, statement, *_):  # type: ignore[no-untyped-def]
        if not kills and statement.lstrip().upper().startswith("INSERT INTO ACTIONS"):
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            admin = create_engine(empty_pg_url)
            with admin.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            admin.dispose()
            kills.append(pid)

    row = store.store(_result("shop.test", ["search", "add_to_cart", "checkout"]))

    assert kills and row.errors == [] and row.actions == 3
    assert store.spool.waiting() == []  # the retry stored it: nothing spooled
    with transaction(store.engine) as session:
        names = sorted(session.scalars(select(ActionRow.name)))
    assert names == ["add_to_cart", "checkout", "search"]  # once each: the kill rolled back
    store.engine.dispose()

"""`actiondex demo`: the whole pipeline on a bundled demo web, on loopback only."""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from actiondex import output
from actiondex.crawling import CrawlOptions, crawl_and_index
from actiondex.demo.web import DemoWeb
from actiondex.runtime import UserError, make_dir, open_index, open_store
from actiondex.serving import check_port_free, doors, serve_api
from registry.config import Settings
from registry.search import FindQuery, find

DEMO_QUERY = "buy printer paper"


def demo_settings(settings: Settings) -> Settings:
    """A fresh store under the data dir, so the demo never mixes with real crawls."""
    data_dir = settings.data_dir / "demo"
    shutil.rmtree(data_dir, ignore_errors=True)
    return Settings(
        data_dir=data_dir, database_url="", index_dir=None, user_agent=settings.user_agent
    )


@contextmanager
def demo_lock(data_dir: Path) -> Iterator[None]:
    """Held by a demo for as long as it runs (serving included): another demo over the same
    data dir would delete and rebuild the store under the live server, which would go on
    serving an index that no longer exists. The lock file sits beside the demo's store, so
    rebuilding the store leaves it alone; the kernel drops the lock when its process ends."""
    make_dir(data_dir, "the data dir (--data-dir, ACTIONDEX_DATA_DIR)")
    with (data_dir / "demo.lock").open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(
                f"another `actiondex demo` is running on {data_dir / 'demo'} (serving, or "
                "building it): stop it first (Ctrl-C), or give this one another --data-dir"
            ) from None
        yield


def run_demo(settings: Settings, *, serve: bool, port: int) -> None:
    with demo_lock(settings.data_dir):
        _run(settings, serve=serve, port=port)


def _run(settings: Settings, *, serve: bool, port: int) -> None:
    if serve:
        check_port_free("127.0.0.1", port)  # fail before crawling, not after
    settings = demo_settings(settings)
    engine = open_store(settings)  # the one engine of this process
    with DemoWeb() as web:
        targets = [f"http://{host}:{web.port}/" for host in web.hosts]
        output.info(
            f"demo web: {len(targets)} sites on 127.0.0.1:{web.port}; store in {settings.data_dir}"
        )
        # Every demo site is on one loopback server of ours: no politeness delay is owed.
        summary = crawl_and_index(
            settings,
            targets,
            web.resolve_args(),
            allow_private=False,
            options=CrawlOptions(delay=0.0),
            engine=engine,
        )
    output.summary(summary, as_json=False)
    index = open_index(settings, engine)
    output.results(find(index, FindQuery(q=DEMO_QUERY, limit=5)))
    # The demo's store is its own (a rerun starts it afresh): say how to reach it.
    output.info(
        f"the demo's store is {settings.data_dir}; search it with "
        f'`actiondex --data-dir {settings.data_dir} find "book a table"`'
    )
    if serve:
        serve_api(settings, engine, "127.0.0.1", port)
        return
    output.info(
        f"serve it with `actiondex --data-dir {settings.data_dir} serve --port {port}`;"
        " it then answers at:"
    )
    for line in doors(f"http://127.0.0.1:{port}"):
        output.info(f"  {line}")

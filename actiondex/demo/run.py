"""`actiondex demo`: the whole pipeline on a bundled demo web, on loopback only."""

from __future__ import annotations

import shutil

from actiondex import output
from actiondex.crawling import CrawlOptions, crawl_and_index
from actiondex.demo.web import DemoWeb
from actiondex.runtime import open_index, open_store
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


def run_demo(settings: Settings, *, serve: bool, port: int) -> None:
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

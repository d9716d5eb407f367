"""run_crawl: one Scrapy crawl into the store, recorded as a crawl run, summarised per site.

It runs through crawler.runner, so at most once per process (Twisted's reactor cannot restart).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from crawler.guard import AddressPolicy
from crawler.heartbeat import beating
from crawler.pipelines import SiteRow, StorePipeline
from crawler.probes import probe_sites
from crawler.runner import run_spider
from crawler.settings import ENGINE_SETTING, RUN_SETTING, Shared, scrapy_settings
from crawler.spiders.site import SiteSpider
from crawler.stopping import aborting
from crawler.targets import check_targets, site_origin
from registry.config import Settings
from registry.db.engine import DB_AWAY, first_line, transaction
from registry.model.codes import counted
from registry.store.crawl_state import (
    CrawlAborted,
    crawl_states,
    finish_run,
    start_run,
    stored_urls,
    stored_validators,
    sweep_abandoned_runs,
)
from registry.store.rows import utcnow
from registry.submissions.queue import mark_crawling, requeue

Progress = Callable[[dict[str, Any]], None]
logger = logging.getLogger(__name__)


class CrawlSummary(BaseModel):
    sites: int = 0
    documents: int = 0
    actions: int = 0
    flows: int = 0
    errors: int = 0
    changed_sites: list[str] = Field(default_factory=list)
    per_site: list[SiteRow] = Field(default_factory=list)
    # Sites whose crawl waited in the spool (the database was away) and is now stored: from
    # earlier runs at the start of this one, from this one at its end.
    replayed: list[str] = Field(default_factory=list)
    requests: int = 0  # HTTP requests sent, retries and redirects included
    refused: int = 0  # requests the address guard refused before connecting
    seconds: float = 0.0
    # The liveness probes of the endpoints the crawled sites list (crawler/probes): endpoints,
    # statuses, requests, seconds, tools stored as actions, sites whose liveness changed.
    probes: dict[str, Any] = Field(default_factory=dict)

    def add(self, row: SiteRow) -> None:
        self._tally(row, 1)
        self.per_site.append(row)

    def stored_later(self, row: SiteRow) -> None:
        """A site spooled during this run and stored at its end: its row replaces the
        ``store-unavailable`` one."""
        self.replayed.append(row.host)
        for i, old in enumerate(self.per_site):
            if old.host == row.host and "store-unavailable" in old.errors:
                self._tally(old, -1)
                self._tally(row, 1)
                self.per_site[i] = row
                return

    def _tally(self, row: SiteRow, sign: int) -> None:
        self.sites += sign
        self.documents += sign * row.documents
        self.actions += sign * row.actions
        self.flows += sign * row.flows
        self.errors += sign * len(row.errors)
        if row.changed and sign > 0:
            self.changed_sites.append(row.host)

    def totals(self) -> dict[str, Any]:
        """The summary without per-site rows: what a crawl run records and progress reports."""
        return self.model_dump(exclude={"per_site"})


def run_crawl(
    targets: list[str],
    settings: Settings,
    policy: AddressPolicy,
    engine: Engine,
    progress: Progress | None = None,
    *,
    log_level: str = "ERROR",
    max_pages: int = 50,
    delay: float = 1.0,
) -> CrawlSummary:
    """Crawl ``targets`` into the store behind ``engine`` (migrated) and return what changed.
    The engine is the caller's, so one serves the whole process; run_crawl never disposes it.

    Raises ValueError, before anything runs, for a target that is malformed or refused;
    CrawlAborted (after recording the run ``aborted``) when SIGTERM or SIGINT stopped it.
    Runs left ``running`` by crawls that died are swept to ``aborted`` first.
    """
    accepted, refusals = check_targets(targets, policy)
    if refusals:
        raise ValueError(refusals[0])
    hosts = [site_origin(target)[0] for target in accepted]
    with transaction(engine) as session:
        # (what a dead run had taken goes back to the queue with it)
        swept = sweep_abandoned_runs(session, utcnow(), settings.crawl_stale_after)
        run_id = start_run(session, kind="crawl", targets=list(targets))
        mark_crawling(session, hosts, run_id, utcnow())  # their submissions: now crawling
    if swept:
        logger.warning(
            "crawl runs %s were abandoned (no heartbeat, or their process is gone): marked aborted",
            ", ".join(map(str, swept)),
        )
    summary, status, started = CrawlSummary(), "failed", time.monotonic()
    config = {
        **scrapy_settings(settings, policy, log_level, delay),
        ENGINE_SETTING: Shared(engine),
        RUN_SETTING: run_id,
    }
    try:
        with aborting() as stop, beating(engine, run_id, settings.crawl_heartbeat):
            store = StorePipeline.from_settings(settings, engine, run_id=run_id)
            summary.replayed += [row.host for row in store.replay()]  # older than what we fetch
            spider_args = _spider_args(engine, accepted, hosts, max_pages)
            with stop.scrapy_running():
                reason = _crawl(spider_args, config, summary, progress, stop.reactor_ready)
            _report_unfinished(hosts, summary)
            for row in store.replay():  # spooled while the database was away, if it is back
                summary.stored_later(row)
            if settings.probes and not stop.requested:
                probed = probe_sites(engine, settings, policy, hosts, delay)
                summary.probes = probed.as_dict()
        status = "aborted" if stop.requested or reason == "shutdown" else "finished"
    except (CrawlAborted, KeyboardInterrupt):
        status = "aborted"
        raise CrawlAborted(run_id) from None
    finally:
        summary.seconds = round(time.monotonic() - started, 3)
        _record(engine, run_id, summary, status)
    if status == "aborted":
        raise CrawlAborted(run_id)
    return summary


def _spider_args(
    engine: Engine, accepted: list[str], hosts: list[str], max_pages: int
) -> dict[str, Any]:
    with transaction(engine) as session:  # read after the replay: it may have stored some
        return {
            "targets": accepted,
            "max_pages": max_pages,
            "validators": stored_validators(session, hosts),
            "states": crawl_states(session, hosts),
            "stored": stored_urls(session, hosts),
        }


def _record(engine: Engine, run_id: int, summary: CrawlSummary, status: str) -> None:
    # Each site's diagnostic codes ride along, so a run records every refusal it met.
    codes = {row.host: counted(row.errors) for row in summary.per_site if row.errors}
    try:
        with transaction(engine) as session:
            finish_run(session, run_id, {**summary.totals(), "site_errors": codes}, status=status)
            # Submissions this run took but did not settle (never reached, or spooled):
            # back to the queue, so none stays `crawling` (registry.submissions.queue.requeue).
            requeue(session, run_id, utcnow())
    except DB_AWAY as exc:
        # What the crawl found is stored or spooled; only the run's record is missing.
        logger.warning(
            "crawl run %s not recorded, database unavailable: %s", run_id, first_line(exc)
        )


def _report_unfinished(hosts: list[str], summary: CrawlSummary) -> None:
    """A site whose last request never called back was never promoted: say so rather than
    leave it out of the summary (its stored actions stay as they were)."""
    done = {row.host for row in summary.per_site}
    for host in dict.fromkeys(hosts):
        if host not in done:
            summary.add(SiteRow(host=host, errors=["crawl-incomplete"]))


def _crawl(
    spider_args: dict[str, Any],
    scrapy: dict[str, Any],
    summary: CrawlSummary,
    progress: Progress | None,
    on_ready: Callable[[], None] | None = None,
) -> str:
    """Run the spider; returns why it closed (Scrapy's reason: "finished", "shutdown")."""

    def site_stored(item: Any) -> None:
        if isinstance(item, SiteRow):
            summary.add(item)
            if progress is not None:
                progress({**summary.totals(), "site": item.model_dump()})

    ran = run_spider(SiteSpider, scrapy, on_item=site_stored, on_ready=on_ready, **spider_args)
    summary.requests = ran.stats.get("downloader/request_count", 0)
    summary.refused = ran.stats.get("guard/refused", 0)
    return ran.reason

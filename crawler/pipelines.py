"""StorePipeline: one SiteResult in, one transaction per site, one SiteRow out (for the summary)."""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import BaseModel, Field
from scrapy.utils.defer import maybe_deferred_to_future
from sqlalchemy import Engine
from twisted.internet.defer import DeferredLock
from twisted.internet.threads import deferToThread

from crawler.settings import ENGINE_SETTING, REGISTRY_SETTING, RUN_SETTING, Shared
from crawler.sitestate import SiteResult
from crawler.spool import Spool
from registry.config import Settings
from registry.db.engine import DB_AWAY, first_line, transaction
from registry.normalising import SiteUpdate, normalise_site
from registry.store.crawl_state import changed_since, save_crawl_state
from registry.store.promotion import PromoteResult, promote_site
from registry.store.rows import utcnow
from registry.store.schedule import Bounds, Outcome, after_crawl
from registry.submissions.queue import ROBOTS, settle

logger = logging.getLogger(__name__)
RETRY_AFTER = 1.0  # seconds before the one retry a lost connection gets


class SiteRow(BaseModel):
    """What the store made of one site's crawl."""

    host: str
    documents: int = 0
    actions: int = 0
    flows: int = 0
    changed: bool = False
    errors: list[str] = Field(default_factory=list)  # FetchFailure / diagnostic codes


class StorePipeline:
    def __init__(
        self,
        engine: Engine,
        max_actions: int,
        stats: Any,
        spool: Spool,
        bounds: Bounds | None = None,
        run_id: int | None = None,
    ) -> None:
        self.engine = engine
        self.bounds = bounds or Bounds()
        self.run_id = run_id  # the crawl run it stores for: named in the sites' history
        self.max_actions = max_actions
        self.stats = stats
        self.spool = spool
        # One promotion at a time: SQLite allows one writer, and a read transaction that must
        # upgrade to a write after another commit fails at once with "database is locked".
        self.lock = DeferredLock()

    @classmethod
    def from_settings(
        cls, settings: Settings, engine: Engine, stats: Any = None, run_id: int | None = None
    ) -> StorePipeline:
        """A store on ``engine``; whoever made the engine disposes of it."""
        return cls(
            engine,
            settings.max_actions_per_site,
            stats,
            Spool(settings.data_dir / "spool"),
            Bounds.from_settings(settings),
            run_id,
        )

    @classmethod
    def from_crawler(cls, crawler: Any) -> StorePipeline:
        settings = crawler.settings.get(REGISTRY_SETTING)
        engine = crawler.settings.get(ENGINE_SETTING)
        if not isinstance(settings, Settings) or not isinstance(engine, Shared):
            raise ValueError(
                f"StorePipeline needs the registry Settings in {REGISTRY_SETTING} "
                f"and the engine in {ENGINE_SETTING}"
            )
        return cls.from_settings(
            settings, engine.value, crawler.stats, crawler.settings.get(RUN_SETTING)
        )

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, SiteResult):
            return item
        # A thread keeps the reactor downloading other sites while this one is written.
        row = await maybe_deferred_to_future(self.lock.run(deferToThread, self.store, item))
        self._count(row)
        return row

    def store(self, item: SiteResult) -> SiteRow:
        """Promote ``item``; never raise. A lost connection gets one retry on a fresh one; a
        database still away gets the item spooled (``store-unavailable``)."""
        try:
            try:
                return self.promote(item)
            except DB_AWAY:
                time.sleep(RETRY_AFTER)
                return self.promote(item)
        except DB_AWAY as exc:
            self.spool.put(item)
            logger.warning(
                "store: database unavailable, %s spooled: %s", item.host, first_line(exc)
            )
            return SiteRow(host=item.host, errors=["store-unavailable"])
        except Exception as exc:  # one bad site must not stop the others
            logger.error("store: %s not stored: %s", item.host, first_line(exc))
            return SiteRow(host=item.host, errors=["store-failed"])

    def promote(self, item: SiteResult, fetched_at: float | None = None) -> SiteRow:
        """Normalise outside the transaction, promote inside it. ``fetched_at`` (a spooled
        result's time): skip the promotion if the site changed in the store since then."""
        update = normalise_site(item.with_references())
        with transaction(self.engine) as session:
            if fetched_at is not None and changed_since(session, item.host, fetched_at):
                logger.info("spool: %s changed since it was spooled; dropped", item.host)
                return SiteRow(host=item.host, errors=["spool-outdated"])
            now = utcnow()
            result = promote_site(
                session, update, max_actions=self.max_actions, now=now, run_id=self.run_id
            )
            after_crawl(session, result.host, outcome(result), self.bounds, now)
            if item.crawl_state is not None:  # None: nothing new to remember, no write
                save_crawl_state(session, item.host, item.crawl_state)
            # Any crawl of the host settles its submission, in the promotion's transaction.
            settle(session, result.host, site_codes(result, update), now)
        return SiteRow(
            host=result.host,
            documents=result.documents,
            actions=result.actions,
            flows=result.flows,
            changed=result.changed,
            errors=list(result.errors),
        )

    def replay(self) -> list[SiteRow]:
        """Promote what the spool holds (crawler.spool); stops while the database is away."""

        def promote(item: SiteResult, spooled_at: float) -> SiteRow | None:
            try:
                return self.promote(item, spooled_at)
            except DB_AWAY:
                return None
            except Exception as exc:  # as in store(): reported, not retried forever
                logger.error("spool: %s not stored: %s", item.host, first_line(exc))
                return SiteRow(host=item.host, errors=["store-failed"])

        return self.spool.replay(promote)

    def _count(self, row: SiteRow) -> None:
        for key in ("documents", "actions", "flows"):
            self.stats.inc_value(f"store/{key}", getattr(row, key))
        self.stats.inc_value("store/sites")
        self.stats.inc_value("store/errors", len(row.errors))
        if row.changed:
            changed = self.stats.get_value("store/changed_sites") or []
            self.stats.set_value("store/changed_sites", [*changed, row.host])


def site_codes(result: PromoteResult, update: SiteUpdate) -> list[str]:
    """The site's diagnostic codes of this crawl, robots.txt refusals included (the store
    leaves them out of its errors: they are the owner's word, not a failure)."""
    robots = any(failure.code == ROBOTS for failure in update.failures)
    return [*result.errors, *([ROBOTS] if robots else [])]


def outcome(result: PromoteResult) -> Outcome:
    """What the schedule makes of a promotion: a crawl that met errors and stored nothing new
    failed (the last good version stays); otherwise it changed the site or did not."""
    if result.changed:
        return "changed"
    return "failed" if result.errors else "unchanged"

"""StorePipeline: one SiteResult in, one transaction per site, one SiteRow out (for the summary)."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, Field
from scrapy.utils.defer import maybe_deferred_to_future
from sqlalchemy import Engine
from sqlalchemy import update as update_rows
from twisted.internet.defer import DeferredLock
from twisted.internet.threads import deferToThread

from crawler.settings import REGISTRY_SETTING
from crawler.sitestate import SiteResult
from registry.config import Settings
from registry.db import make_engine, transaction
from registry.models import Site
from registry.service import normalise_site, promote_site

logger = logging.getLogger(__name__)


class SiteRow(BaseModel):
    """What the store made of one site's crawl."""

    host: str
    documents: int = 0
    actions: int = 0
    flows: int = 0
    changed: bool = False
    errors: list[str] = Field(default_factory=list)  # FetchFailure / diagnostic codes


class StorePipeline:
    def __init__(self, engine: Engine, max_actions: int, stats: Any) -> None:
        self.engine = engine
        self.max_actions = max_actions
        self.stats = stats
        # One promotion at a time: SQLite allows one writer, and a read transaction that must
        # upgrade to a write after another commit fails at once with "database is locked".
        self.lock = DeferredLock()

    @classmethod
    def from_crawler(cls, crawler: Any) -> StorePipeline:
        settings = crawler.settings.get(REGISTRY_SETTING)
        if not isinstance(settings, Settings):
            raise ValueError(f"StorePipeline needs the registry Settings in {REGISTRY_SETTING}")
        return cls(make_engine(settings), settings.max_actions_per_site, crawler.stats)

    def close_spider(self) -> None:
        self.engine.dispose()

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, SiteResult):
            return item
        # A thread keeps the reactor downloading other sites while this one is written.
        row = await maybe_deferred_to_future(self.lock.run(deferToThread, self.store, item))
        self._count(row)
        return row

    def store(self, item: SiteResult) -> SiteRow:
        """Normalise outside the transaction, promote inside it; never raise."""
        crawl = item
        try:
            update = normalise_site(item.with_references())
            with transaction(self.engine) as session:
                result = promote_site(session, update, max_actions=self.max_actions)
                if item.crawl_state is not None:  # None: nothing new to remember, no write
                    session.execute(update_rows(Site).where(Site.host == item.host)
                                    .values(crawl_state=item.crawl_state))
        except Exception as exc:  # one bad site must not stop the others
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            logger.error("store: %s not stored: %s", crawl.host, reason[:300])
            return SiteRow(host=crawl.host, errors=["store-failed"])
        return SiteRow(host=result.host, documents=result.documents, actions=result.actions,
                       flows=result.flows, changed=result.changed, errors=list(result.errors))

    def _count(self, row: SiteRow) -> None:
        for key in ("documents", "actions", "flows"):
            self.stats.inc_value(f"store/{key}", getattr(row, key))
        self.stats.inc_value("store/sites")
        self.stats.inc_value("store/errors", len(row.errors))
        if row.changed:
            changed = self.stats.get_value("store/changed_sites") or []
            self.stats.set_value("store/changed_sites", [*changed, row.host])

"""The liveness probes on PostgreSQL: a periodic task on the ``schedule`` queue, beside the
crawl jobs, probes the endpoints whose next probe is due (crawler/probes). It runs in a thread
of `actiondex schedule` (a probe is a few small requests, bounded in time); the API's index
follows the sites whose liveness changed, as it follows crawls."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import Engine

from crawler.guard import policy_from
from crawler.probes import probe_due
from registry.config import Settings

log = logging.getLogger("actiondex.jobs")


def due_probes(engine: Engine, settings: Settings) -> dict[str, Any]:
    if not settings.probes:
        return {"endpoints": 0}
    found = probe_due(engine, settings, policy_from(settings), settings.schedule_batch)
    if found.endpoints:
        log.info("scheduler: %d endpoints probed: %s", found.endpoints, found.statuses)
    return found.as_dict()


async def probe_due_endpoints(engine: Engine, settings: Settings) -> dict[str, Any]:
    return await asyncio.to_thread(due_probes, engine, settings)

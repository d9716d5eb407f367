"""The store from async code: a lookup in a read-only session (registry.db.engine.reading), run in a
worker thread so the database never blocks the event loop. The web pages and the MCP tools
use it; the JSON routes get the same through SessionDep (api.deps). DB_AWAY propagates: each
door says it its own way (a 503 page, a tool error, a 503 body)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from sqlalchemy import Engine

from registry.db.engine import reading


async def read(engine: Engine, lookup: Callable[..., Any], *args: Any) -> Any:
    """``lookup(session, *args)`` in a read-only session, in a worker thread."""

    def run() -> Any:
        with reading(engine) as session:
            return lookup(session, *args)

    return await anyio.to_thread.run_sync(run)

"""A crawl run's heartbeat: a thread that touches ``crawl_runs.heartbeat_at`` every few
seconds while the crawl runs, so a sweep can tell a live run from an abandoned one."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

from registry.db.engine import first_line, transaction
from registry.store.crawl_state import heartbeat

logger = logging.getLogger(__name__)


@contextmanager
def beating(engine: Engine, run_id: int, every: float) -> Iterator[threading.Event]:
    """Touch the run's heartbeat every ``every`` seconds until the block ends. Yields the
    stop event (set when the block ends). A database away skips a beat, nothing more."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            try:
                with transaction(engine) as session:
                    heartbeat(session, run_id)
            except Exception as exc:  # a skipped beat; the next one may get through
                logger.warning("crawl run %s: heartbeat skipped: %s", run_id, first_line(exc))

    thread = threading.Thread(target=beat, name=f"heartbeat-{run_id}", daemon=True)
    thread.start()
    try:
        yield stop
    finally:
        stop.set()
        thread.join(timeout=every + 5)

"""The procrastinate App over the store's PostgreSQL database, and what refuses SQLite."""

from __future__ import annotations

import logging
import sys

from procrastinate import App
from sqlalchemy import make_url

from actiondex.jobs.tasks import CRAWL_QUEUE, CrawlKnobs, register
from actiondex.runtime import UserError
from registry.config import Settings

__all__ = ["CRAWL_QUEUE", "SCHEDULE_QUEUE", "NeedsPostgres", "conninfo", "make_app"]
SCHEDULE_QUEUE = "schedule"
# Seconds a query waits for a pooled connection: past it, the database counts as unreachable
# and actiondex.jobs.outage takes over (says so once, waits with backoff).
POOL_WAIT = 5.0


class NeedsPostgres(UserError):
    code = "needs-postgresql"


def conninfo(settings: Settings) -> str:
    """The libpq URL of the store (procrastinate talks psycopg 3 directly, not SQLAlchemy);
    SQLite is refused in one line: the queue lives in PostgreSQL."""
    url = make_url(settings.db_url)
    if url.get_backend_name() != "postgresql":
        raise NeedsPostgres(
            "distributed crawling needs PostgreSQL (set ACTIONDEX_DATABASE_URL to a "
            "postgresql:// URL); with the embedded SQLite store run `actiondex crawl` instead"
        )
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def make_app(settings: Settings, knobs: CrawlKnobs | None = None) -> App:
    """A procrastinate App with the crawl task registered (see actiondex.jobs.tasks), whose
    queue calls wait out a database outage (actiondex.jobs.resilient)."""
    from actiondex.jobs.resilient import ReregisteringJobManager, ResilientConnector

    app = App(
        connector=ResilientConnector(
            conninfo=conninfo(settings),
            min_size=1,
            max_size=4,
            timeout=POOL_WAIT,
            # The pool's own reconnection backs off without a cap (1 s, 2 s ... 64 s, 128 s): it
            # would notice a database back up to minutes late. Give each attempt up soon instead;
            # the next query starts a fresh one, at actiondex.jobs.outage's pace.
            reconnect_timeout=2 * POOL_WAIT,
        )
    )
    app.job_manager = ReregisteringJobManager(app.connector)
    register(app, settings, knobs)
    return app


def log_to_stderr(verbose: bool = False) -> None:
    """One line per event on stderr: ours, and procrastinate's worker lifecycle."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name, level in (
        ("actiondex", logging.INFO),
        ("procrastinate", logging.INFO if verbose else logging.WARNING),
    ):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.addHandler(handler)
        logger.propagate = False
    # The pool's reconnection attempts, one line each: actiondex.jobs.outage says it once.
    quiet = logging.getLogger("psycopg.pool")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False

"""The procrastinate App over the store's PostgreSQL database, and what refuses SQLite."""

from __future__ import annotations

import logging
import sys

from procrastinate import App, PsycopgConnector
from sqlalchemy import make_url

from actiondex.jobs.tasks import CRAWL_QUEUE, CrawlKnobs, register
from actiondex.runtime import UserError
from registry.config import Settings

__all__ = ["CRAWL_QUEUE", "SCHEDULE_QUEUE", "NeedsPostgres", "conninfo", "make_app"]
SCHEDULE_QUEUE = "schedule"


class NeedsPostgres(UserError):
    code = "needs-postgresql"


def conninfo(settings: Settings) -> str:
    """The libpq URL of the store (procrastinate talks psycopg 3 directly, not SQLAlchemy);
    SQLite is refused in one line: the queue lives in PostgreSQL."""
    url = make_url(settings.db_url)
    if url.get_backend_name() != "postgresql":
        raise NeedsPostgres(
            "distributed crawling needs PostgreSQL (set ACTIONDEX_DATABASE_URL to a "
            "postgresql:// URL); with the embedded SQLite store run `actiondex crawl` instead")
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def make_app(settings: Settings, knobs: CrawlKnobs | None = None) -> App:
    """A procrastinate App with the crawl task registered (see actiondex.jobs.tasks)."""
    app = App(connector=PsycopgConnector(conninfo=conninfo(settings), min_size=1, max_size=4))
    register(app, settings, knobs)
    return app


def log_to_stderr(verbose: bool = False) -> None:
    """One line per event on stderr: ours, and procrastinate's worker lifecycle."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name, level in (("actiondex", logging.INFO),
                        ("procrastinate", logging.INFO if verbose else logging.WARNING)):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.addHandler(handler)
        logger.propagate = False

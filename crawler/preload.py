"""Imported by the worker's forkserver (actiondex.jobs.forked.PRELOAD): every class a crawl's
Scrapy settings name, and the store's PostgreSQL driver, so no crawl child imports them.

Why: Scrapy imports its components by name when a crawler starts (load_object), not when it is
imported, and SQLAlchemy its driver at the first connection; each child forked from the
forkserver did it again: ~40% of the children's CPU in a py-spy profile of a 2-worker recrawl
(Scrapy's remote-control extension alone imported aiohttp's web server; it is out of the
crawl's extensions now, crawler/settings.py, and imported here all the same, since Scrapy
imports a disabled component's name too).
"""

from __future__ import annotations

import contextlib

import psycopg  # noqa: F401  (the driver SQLAlchemy's dialect imports at its first engine)
import sqlalchemy.dialects.postgresql.psycopg  # noqa: F401
from scrapy.settings import Settings as ScrapySettings
from scrapy.utils.misc import load_object

from crawler.guard import AddressPolicy
from crawler.settings import scrapy_settings
from registry.config import Settings

TABLES = ("DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "EXTENSIONS", "ITEM_PIPELINES")
SINGLE = ("SCHEDULER", "DOWNLOADER", "ITEM_PROCESSOR")


def components(config: dict[str, object]) -> list[str]:
    """The dotted names of the classes Scrapy loads for a crawl with ``config``."""
    scrapy = ScrapySettings(config)
    names = [str(path) for path in scrapy.getwithbase("DOWNLOAD_HANDLERS").values() if path]
    for table in TABLES:
        # Every key, disabled ones too: Scrapy imports each key of a table to normalise it,
        # None or not (2.19: the remote-control extension, off here, still imported aiohttp's
        # web server and made two TLS contexts in each child).
        names += [name for name in scrapy.getwithbase(table) if isinstance(name, str)]
    for key, value in scrapy.items():
        if isinstance(value, str) and (key in SINGLE or key.endswith(("_CLASS", "_QUEUE"))):
            names.append(value)
    return list(dict.fromkeys(names))


def _load_all() -> None:
    try:
        config = scrapy_settings(Settings(), AddressPolicy())
    except Exception:  # a forkserver must start whatever the environment says; a child
        return  # that cannot read its settings says so itself, in one line
    for name in components(config):
        with contextlib.suppress(ImportError, NameError, ValueError):
            load_object(name)


_load_all()

"""One module per command (its arguments, help and exit code); the work lives beside them in
actiondex/ (crawling, ingest, finding, validating, serving) and in registry/, crawler/, api/.

Each command module imports the heavy parts (Scrapy, uvicorn) inside its function, so
`actiondex --help` and `actiondex find` never load the crawler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from actiondex.commands import (
    crawl,
    find,
    ingest,
    jobs,
    maintain,
    mcp,
    runs,
    serve,
    sites,
    submit,
    validate,
)

# In the order `actiondex --help` lists them.
COMMANDS: list[Callable[..., Any]] = [
    maintain.migrate,
    crawl.crawl,
    submit.submit,
    runs.runs,
    ingest.ingest,
    maintain.index,
    find.find,
    validate.validate,
    sites.history,
    serve.serve,
    mcp.mcp,
    serve.demo,
    jobs.schedule,
    jobs.worker,
]
# Commands with sub-commands (`actiondex sites remove HOST`): one typer app each.
GROUPS: list[typer.Typer] = [sites.app]

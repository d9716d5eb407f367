"""`actiondex crawl`: its arguments, help and exit code (the work: actiondex.crawling)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from actiondex import output
from actiondex.commands.options import JsonOpt, PrivateOpt, ResolveOpt, load_settings


def crawl(
    targets: Annotated[list[str] | None,
                       typer.Argument(help="Sites to crawl: domains or URLs.")] = None,
    file: Annotated[Path | None, typer.Option(
        "--file", help="Read targets from FILE, one domain or URL per line.")] = None,
    max_pages: Annotated[int, typer.Option(
        "--max-pages", min=0, help="HTML pages read per site from its sitemaps.")] = 50,
    delay: Annotated[float, typer.Option(
        "--delay", min=0.0, help="Minimum seconds between requests to one host.")] = 1.0,
    no_index: Annotated[bool, typer.Option(
        "--no-index", help="Store only, leave the search index alone (crawl workers: the API "
        "replicas follow the store).")] = False,
    resolve: ResolveOpt = None,
    allow_private: PrivateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Crawl sites: robots.txt, well-known manifests, pages, sitemaps and references."""
    from actiondex.crawling import CrawlOptions, crawl_and_index, read_targets

    options = CrawlOptions(max_pages=max_pages, delay=delay, index=not no_index)
    summary = crawl_and_index(load_settings(), read_targets(targets or [], file), resolve or [],
                              allow_private, quiet=as_json, options=options)
    output.summary(summary, as_json)
    if summary["sites"] == 0 or summary["errors"] and summary["actions"] == 0:
        raise typer.Exit(1)

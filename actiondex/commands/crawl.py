"""`actiondex crawl`: its arguments, help and exit code (the work: actiondex.crawling)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from actiondex import output
from actiondex.commands.options import JsonOpt, PrivateOpt, ResolveOpt, load_settings
from actiondex.runtime import UserError

if TYPE_CHECKING:
    from actiondex.crawling import CrawlOptions


def crawl(
    targets: Annotated[
        list[str] | None, typer.Argument(help="Sites to crawl: domains or URLs.")
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", help="Read targets from FILE, one domain or URL per line."),
    ] = None,
    max_pages: Annotated[
        int, typer.Option("--max-pages", min=0, help="HTML pages read per site from its sitemaps.")
    ] = 50,
    delay: Annotated[
        float,
        typer.Option("--delay", min=0.0, help="Minimum seconds between requests to one host."),
    ] = 1.0,
    no_index: Annotated[
        bool,
        typer.Option(
            "--no-index",
            help="Store only, leave the search index alone (crawl workers: the API "
            "replicas follow the store).",
        ),
    ] = False,
    due: Annotated[
        bool,
        typer.Option(
            "--due",
            help="Crawl every stored site whose next crawl is due, once, and exit (for "
            "cron or a systemd timer); with TARGETs, only those of them that are "
            "due. Nothing due is not an error.",
        ),
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="With --due: crawl at most N sites, the most overdue first (1000 if not given).",
        ),
    ] = None,
    report_sites: Annotated[
        Path | None,
        typer.Option(
            "--report-sites",
            hidden=True,  # the worker's: it ends each site's job as the site is stored
            help="Write each site's summary row to FILE, one JSON line, as it is stored.",
        ),
    ] = None,
    resolve: ResolveOpt = None,
    allow_private: PrivateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Crawl sites: robots.txt, well-known manifests, pages, sitemaps and references.

    Every request is signed (Web Bot Auth: HTTP Message Signatures, Ed25519) with the key in \
<data dir>/signing-key.jwk, made on the first crawl; ACTIONDEX_PUBLIC_URL names the \
registry whose /.well-known/http-message-signatures-directory lists it, and \
ACTIONDEX_SIGN_REQUESTS=false turns signing off."""
    from actiondex.crawling import CrawlOptions, crawl_and_index, read_targets

    options = CrawlOptions(
        max_pages=max_pages, delay=delay, index=not no_index, report=report_sites
    )
    if due:
        _crawl_due(targets or [], file, limit, resolve or [], allow_private, as_json, options)
        return
    if limit is not None:
        raise UserError("--limit goes with --due (a plain crawl takes every TARGET)")
    summary = crawl_and_index(
        load_settings(),
        read_targets(targets or [], file),
        resolve or [],
        allow_private,
        quiet=as_json,
        options=options,
    )
    output.summary(summary, as_json)
    if summary["sites"] == 0 or summary["errors"] and summary["actions"] == 0:
        raise typer.Exit(1)


def _crawl_due(
    targets: list[str],
    file: Path | None,
    limit: int | None,
    resolve: list[str],
    allow_private: bool | None,
    as_json: bool,
    options: CrawlOptions,
) -> None:
    from actiondex.crawling import read_targets
    from actiondex.due import DEFAULT_LIMIT, crawl_due

    named = read_targets(targets, file) if targets or file else []
    summary = crawl_due(
        load_settings(),
        named,
        limit or DEFAULT_LIMIT,
        resolve,
        allow_private,
        quiet=as_json,
        options=options,
    )
    if summary["due"] == 0:
        if as_json:
            output.summary(summary, as_json)
        else:
            probed = summary.get("probes_due") or {}
            more = f"; {probed['endpoints']} endpoints probed" if probed.get("endpoints") else ""
            output.info(f"nothing is due for a crawl{more}")
        return
    output.summary(summary, as_json)
    if summary["errors"] and summary["actions"] == 0:
        raise typer.Exit(1)

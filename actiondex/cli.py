"""The ``actiondex`` command. Each command is a thin shell over registry/, crawler/ and api/."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from actiondex import output
from actiondex.runtime import UserError, open_index, open_store
from registry.config import Settings, get_settings
from registry.db import make_engine
from registry.db import migrate as run_migrations
from registry.schemas import AUTHS, EFFECTS
from registry.search.contract import LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_PER_SITE, PER_SITE

app = typer.Typer(
    help="actiondex: an open registry of the actions websites offer to AI agents.\n\n"
    "Crawl sites, normalise what they publish into one action model, and find actions "
    "with BM25 search from the command line or over HTTP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print exactly one JSON object.")]
ResolveOpt = Annotated[
    list[str] | None,
    typer.Option("--resolve", metavar="HOST:PORT:ADDR",
                 help="Connect to HOST:PORT at ADDR, and allow exactly that host and port even "
                      "where ADDR is private (like curl --resolve). Repeatable."),
]
PrivateOpt = Annotated[
    bool, typer.Option("--allow-private",
                       help="Allow private, loopback and other non-public addresses "
                            "(for private deployments only).")
]


@app.callback()
def _global(
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", envvar="ACTIONDEX_DATA_DIR",
                     help="Where the embedded database and the index live [default: .actiondex]"),
    ] = None,
) -> None:
    if data_dir is not None:
        os.environ["ACTIONDEX_DATA_DIR"] = str(data_dir)
    get_settings.cache_clear()


def _settings() -> Settings:
    try:
        return get_settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "ACTIONDEX_" + str(first["loc"][0]).upper() if first["loc"] else "settings"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise UserError(f"bad configuration: {field}: {message}") from exc


def _refresh_index_parts(session: Any) -> None:
    """Actions an older version stored lack their index parts; every rebuild would work them
    out again, at a third of its speed. Store them once (about a minute per 100k actions)."""
    from registry.service import refresh_index_parts, stale_index_parts

    if stale := stale_index_parts(session):
        output.info(f"working out the index parts of {stale} actions stored by an older "
                    "version (once)...")
        refresh_index_parts(session)


@app.command()
def migrate() -> None:
    """Create or upgrade the database schema to the newest revision."""
    from registry.db import transaction

    settings = _settings()
    engine = make_engine(settings)
    run_migrations(engine)
    output.info(f"database at head: {output.safe_url(settings.db_url)}")
    with transaction(engine) as session:
        _refresh_index_parts(session)


@app.command()
def crawl(
    targets: Annotated[list[str] | None,
                       typer.Argument(help="Sites to crawl: domains or URLs.")] = None,
    file: Annotated[Path | None, typer.Option(
        "--file", help="Read targets from FILE, one domain or URL per line.")] = None,
    max_pages: Annotated[int, typer.Option(
        "--max-pages", min=0, help="HTML pages read per site from its sitemaps.")] = 50,
    delay: Annotated[float, typer.Option(
        "--delay", min=0.0, help="Minimum seconds between requests to one host.")] = 1.0,
    resolve: ResolveOpt = None,
    allow_private: PrivateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Crawl sites: robots.txt, well-known manifests, pages, sitemaps and references."""
    from actiondex.crawling import CrawlOptions, crawl_and_index, read_targets

    options = CrawlOptions(max_pages=max_pages, delay=delay)
    summary = crawl_and_index(_settings(), read_targets(targets or [], file), resolve or [],
                              allow_private, quiet=as_json, options=options)
    output.summary(summary, as_json)
    if summary["sites"] == 0 or summary["errors"] and summary["actions"] == 0:
        raise typer.Exit(1)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Manifest files or folders.")],
    origin: Annotated[str | None, typer.Option(
        help="The site the manifests belong to, e.g. https://shop.example "
             "[default: the manifest's own site/url field]")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Load manifest files (format sniffed from content) into the store and the index."""
    from actiondex.ingest import ingest_paths

    settings = _settings()
    engine = open_store(settings)
    summary = ingest_paths(engine, paths, origin)
    open_index(settings, engine)
    output.summary(summary, as_json)
    if summary["errors"] and summary["actions"] == 0:
        raise typer.Exit(1)


@app.command()
def index(
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Build a fresh index and swap it in atomically.")] = False,
) -> None:
    """Bring the search index up to date with the store."""
    from registry.db import transaction
    from registry.index import ActionIndex

    settings = _settings()
    engine = open_store(settings)
    with transaction(engine) as session:
        if rebuild:
            _refresh_index_parts(session)
            stats = ActionIndex.rebuild(settings.index_path, session)
        else:
            stats = ActionIndex.open(settings.index_path).sync(session)
    verb = "rebuilt" if rebuild else "up to date"
    output.info(f"index {verb} (generation {stats.generation}): {stats.sites_indexed} sites "
                f"(re)indexed, {stats.sites_removed} removed, {stats.documents} documents "
                f"written in {stats.took_ms:.0f} ms")


@app.command()
def find(  # noqa: PLR0913 - one option per GET /find parameter
    query: Annotated[str, typer.Argument(help="What the agent wants to do.")],
    effect: Annotated[list[str] | None, typer.Option(
        help=f"Only these effects ({', '.join(EFFECTS)}). Repeatable.")] = None,
    site: Annotated[list[str] | None, typer.Option(
        help="Only this site (host or parent domain). Repeatable.")] = None,
    type_: Annotated[list[str] | None, typer.Option(
        "--type", help="Only this Schema.org Action type, e.g. BuyAction. Repeatable.")] = None,
    format_: Annotated[list[str] | None, typer.Option(
        "--format", help="Only this source format, e.g. agent-actions. Repeatable.")] = None,
    method: Annotated[list[str] | None, typer.Option(
        help="Only this HTTP method. Repeatable.")] = None,
    auth: Annotated[list[str] | None, typer.Option(
        help=f"Only actions needing this ({', '.join(AUTHS)}). Repeatable.")] = None,
    origin: Annotated[str, typer.Option(
        help="Endpoints on the site's own domain (same), on another (cross) or both (any).")
    ] = "same",
    limit: Annotated[int, typer.Option(help=f"How many results (1-{MAX_LIMIT}).")] = LIMIT,
    offset: Annotated[int, typer.Option(help=f"Results to skip (at most {MAX_OFFSET}).")] = 0,
    per_site: Annotated[int, typer.Option(
        help=f"Results per site on a page (1-{MAX_PER_SITE}).")] = PER_SITE,
    explain: Annotated[bool, typer.Option(help="Show each result's score breakdown.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Find actions and flows: which site offers what, how to call it, what it will do."""
    from actiondex.finding import run

    run(query, {"effect": effect, "site": site, "type": type_, "format": format_,
                "method": method, "auth": auth, "origin": origin, "limit": limit,
                "offset": offset, "per_site": per_site, "explain": explain},
        _settings, as_json)


@app.command()
def validate(
    target: Annotated[str, typer.Argument(
        help="A manifest or page file, a document URL, or a site (domain or https://site/).")],
    origin: Annotated[str | None, typer.Option(
        help="For a file: the site it will be published on, e.g. https://shop.example "
             "[default: the manifest's own site/url field]")] = None,
    resolve: ResolveOpt = None,
    allow_private: PrivateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Show what agents will see of a manifest or a site, and every problem with a fix.

    Nothing is stored. Exit code 0 without errors, 1 with errors, 2 on bad input.
    """
    from actiondex.validating import run

    if not run(target, origin, resolve or [], allow_private, _settings, as_json):
        raise typer.Exit(1)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Serve the HTTP API (GET /find, GET /healthz)."""
    from actiondex.serving import serve_api

    settings = _settings()
    serve_api(settings, open_store(settings), host, port)


@app.command()
def demo(
    no_serve: Annotated[bool, typer.Option(
        "--no-serve", help="Stop after printing the results instead of serving the API.")] = False,
    port: Annotated[int, typer.Option(help="Port for the API.")] = 8000,
) -> None:
    """Crawl a bundled demo web on loopback, index it, search it, then serve the API."""
    from actiondex.demo.run import run_demo

    run_demo(_settings(), serve=not no_serve, port=port)


def main() -> None:
    """Entry point: user errors become one line on stderr, never a traceback."""
    try:
        app()
    except UserError as exc:
        print(f"actiondex: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # last resort: say what happened in one line
        if os.environ.get("ACTIONDEX_DEBUG"):
            raise
        print(f"actiondex: error: {type(exc).__name__}: {exc} (set ACTIONDEX_DEBUG=1 for "
              "the traceback)", file=sys.stderr)
        sys.exit(1)


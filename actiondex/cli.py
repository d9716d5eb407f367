"""The ``actiondex`` command. Each command is a thin shell over registry/, crawler/ and api/."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from actiondex import output
from actiondex.runtime import UserError, first_line, open_index, open_store
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
                      "where ADDR is private (like curl --resolve). Repeatable; adds to "
                      "ACTIONDEX_RESOLVE."),
]
PrivateOpt = Annotated[
    bool | None, typer.Option("--allow-private/--no-allow-private",
                              help="Allow private, loopback and other non-public addresses "
                                   "(for private deployments only). Default: "
                                   "ACTIONDEX_ALLOW_PRIVATE, else no.", show_default=False)
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
        _check_data_dir(data_dir)
        os.environ["ACTIONDEX_DATA_DIR"] = str(data_dir)
    get_settings.cache_clear()


def _check_data_dir(data_dir: Path) -> None:
    """A data dir must be a folder, or creatable as one: say so before any command runs."""
    existing = next((p for p in (data_dir, *data_dir.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        where = "is a file" if existing == data_dir else f"is inside the file {existing}"
        raise UserError(f"--data-dir {data_dir}: {where}, not a folder")


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
    from registry.parts_refresh import refresh_index_parts, stale_index_parts

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
    allow_private: PrivateOpt = None,
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
             "[default: the site each manifest names: its site/url field]")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Load manifest files (format sniffed from content) into the store and the index.

    A file that is no manifest (a JSON Schema, a README, a page without Schema.org) or
    names no site is skipped and listed with its reason; the others are stored. Exit code
    0 when every file was stored, 1 when any was skipped or no action could be stored from
    documents with errors, 2 on bad input.
    """
    from actiondex.ingest import ingest_paths

    settings = _settings()
    engine = open_store(settings)
    summary = ingest_paths(engine, paths, origin)
    open_index(settings, engine)
    output.summary(summary, as_json)
    if summary["skipped"] or summary["errors"] and summary["actions"] == 0:
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
    allow_private: PrivateOpt = None,
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
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
) -> None:
    """Serve the HTTP API (GET /find, GET /healthz)."""
    from actiondex.serving import serve_api

    settings = _settings()
    serve_api(settings, open_store(settings), host, port)


@app.command()
def demo(
    no_serve: Annotated[bool, typer.Option(
        "--no-serve", help="Stop after printing the results instead of serving the API.")] = False,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port for the API.")] = 8000,
) -> None:
    """Crawl a bundled demo web on loopback, index it, search it, then serve the API."""
    from actiondex.demo.run import run_demo

    run_demo(_settings(), serve=not no_serve, port=port)


def main(args: list[str] | None = None) -> None:
    """Entry point: every failure is one line on stderr (with ``--json``: one JSON error
    object on stdout), never a traceback. Exit 2 for bad input, 1 for anything else."""
    args = (sys.argv[1:] if args is None else args) or ["--help"]
    try:
        code = app(args=args, prog_name="actiondex", standalone_mode=False)
    except typer.TyperException as exc:  # a bad option or argument, as typer's click found it
        code = _fail(args, "bad-input", _usage_message(exc), 2)
    except UserError as exc:
        code = _fail(args, exc.code, str(exc), 2)
    except OperationalError as exc:  # the database server is down or refuses us
        code = _fail(args, "database-unavailable",
                     f"cannot reach the database: {first_line(exc)}", 2)
    except (KeyboardInterrupt, typer.Abort):
        code = 130
    except Exception as exc:  # last resort: say what happened in one line
        if os.environ.get("ACTIONDEX_DEBUG"):
            raise
        code = _fail(args, "internal-error", f"{type(exc).__name__}: {first_line(exc)} (set "
                     "ACTIONDEX_DEBUG=1 for the traceback)", 1)
    sys.exit(code or 0)


def _fail(args: list[str], code: str, message: str, status: int) -> int:
    """Say what went wrong: a JSON object when the command was asked for JSON."""
    options = args[: args.index("--")] if "--" in args else args
    if "--json" in options:
        print(json.dumps({"error": {"code": code, "message": message}}))
    else:
        print(f"actiondex: error: {message}", file=sys.stderr)
    return status


def _usage_message(exc: typer.TyperException) -> str:
    """click's message in one line, with where to read more."""
    message = " ".join(exc.format_message().split())
    context = getattr(exc, "ctx", None)
    where = f" (see `{context.command_path} --help`)" if context is not None else ""
    return message + where

"""`actiondex serve` and `actiondex demo`: the HTTP API, on the store or on the demo web."""

from __future__ import annotations

from typing import Annotated

import typer

from actiondex.commands.options import load_settings
from actiondex.runtime import open_store


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
) -> None:
    """Serve the HTTP API (GET /find, /actions, /flows, /sites, /stats, POST /validate...).

    Behind a proxy, set ACTIONDEX_TRUSTED_PROXIES: X-Forwarded-For is believed from it only.
    ACTIONDEX_MEANING_FIRST_STAGE=true keeps a vector index in memory so a sentence also finds
    actions that share no word with it (off by default: about twice /find's time)."""
    from actiondex.serving import serve_api

    settings = load_settings()
    serve_api(settings, open_store(settings), host, port)


def demo(
    no_serve: Annotated[
        bool,
        typer.Option(
            "--no-serve", help="Stop after printing the results instead of serving the API."
        ),
    ] = False,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port for the API.")] = 8000,
) -> None:
    """Crawl a bundled demo web on loopback, index it, search it, then serve the API."""
    from actiondex.demo.run import run_demo

    run_demo(load_settings(), serve=not no_serve, port=port)

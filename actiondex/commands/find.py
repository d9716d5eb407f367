"""`actiondex find`: one option per GET /find parameter (the work: actiondex.finding)."""

from __future__ import annotations

from typing import Annotated

import typer

from actiondex.commands.options import JsonOpt, load_settings
from registry.model.schemas import AUTHS, EFFECTS
from registry.search.contract import LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_PER_SITE, PER_SITE


def find(
    query: Annotated[str, typer.Argument(help="What the agent wants to do.")],
    effect: Annotated[
        list[str] | None,
        typer.Option(help=f"Only these effects ({', '.join(EFFECTS)}). Repeatable."),
    ] = None,
    site: Annotated[
        list[str] | None, typer.Option(help="Only this site (host or parent domain). Repeatable.")
    ] = None,
    type_: Annotated[
        list[str] | None,
        typer.Option(
            "--type", help="Only this Schema.org Action type, e.g. BuyAction. Repeatable."
        ),
    ] = None,
    format_: Annotated[
        list[str] | None,
        typer.Option("--format", help="Only this source format, e.g. agent-actions. Repeatable."),
    ] = None,
    method: Annotated[
        list[str] | None, typer.Option(help="Only this HTTP method. Repeatable.")
    ] = None,
    auth: Annotated[
        list[str] | None,
        typer.Option(help=f"Only actions needing this ({', '.join(AUTHS)}). Repeatable."),
    ] = None,
    origin: Annotated[
        str,
        typer.Option(
            help=(
                "Endpoints on the site or a subdomain (same), on another host (cross) or "
                "both (any; same-origin first at equal relevance)."
            )
        ),
    ] = "any",
    limit: Annotated[int, typer.Option(help=f"How many results (1-{MAX_LIMIT}).")] = LIMIT,
    offset: Annotated[int, typer.Option(help=f"Results to skip (at most {MAX_OFFSET}).")] = 0,
    per_site: Annotated[
        int, typer.Option(help=f"Results per site on a page (1-{MAX_PER_SITE}).")
    ] = PER_SITE,
    explain: Annotated[bool, typer.Option(help="Show each result's score breakdown.")] = False,
    live: Annotated[
        bool,
        typer.Option(
            "--live",
            help="Only actions whose endpoint answered its last liveness probe (MCP servers, "
            "A2A agents, ARD registries).",
        ),
    ] = False,
    group: Annotated[
        str,
        typer.Option(
            help="One result per action (action) or one entry per site with its best actions "
            "(site); --limit and --offset then count sites."
        ),
    ] = "action",
    as_json: JsonOpt = False,
) -> None:
    """Find actions and flows: which site offers what, how to call it, what it will do.

    ACTIONDEX_MEANING_FIRST_STAGE=true also finds, for a sentence, actions that share no word
    with it, by their vectors (read from the store on every call: slow on a large store)."""
    from actiondex.finding import run

    run(
        query,
        {
            "effect": effect,
            "site": site,
            "type": type_,
            "format": format_,
            "method": method,
            "auth": auth,
            "origin": origin,
            "limit": limit,
            "offset": offset,
            "per_site": per_site,
            "explain": explain,
            "live": live,
            "group": group,
        },
        load_settings,
        as_json,
    )

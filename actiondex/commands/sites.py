"""`actiondex sites remove HOST` (an operator withdraws a site) and `actiondex history HOST`
(what changed in a site's action set, newest first). The work: registry.store.removal and
registry.store.history."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from actiondex import output
from actiondex.commands.options import JsonOpt, load_settings
from actiondex.runtime import UserError, open_index, open_store
from registry.db.engine import transaction
from registry.model.bounds import MAX_PAGE
from registry.store.history import site_history
from registry.store.promotion import NotFound
from registry.store.removal import remove_site
from registry.store.site_list import host_key, iso

app = typer.Typer(name="sites", help="Operate on the sites in the store.", add_completion=False)
HostArg = Annotated[
    str, typer.Argument(help="The site's host (any case, a URL, an IDN in Unicode or as A-labels).")
]


def _host(text: str) -> str:
    host = host_key(text)
    if host is None:
        raise UserError(f"{text[:300]!r} is not a host name")
    return host


@app.callback(invoke_without_command=True)
def _sites(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:  # `actiondex sites` alone: its help, as `actiondex`
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


@app.command()
def remove(host: HostArg, as_json: JsonOpt = False) -> None:
    """Withdraw a site: its documents, actions and flows go; its history stays.

    The index drops it; its row and history stay, with an entry "removed". Schedules skip
    it; an explicit `actiondex crawl` or `ingest` of it brings it back. Removing it again
    changes nothing. Unknown host: exit code 2.
    """
    settings = load_settings()
    engine = open_store(settings)
    try:
        with transaction(engine) as session:
            done = remove_site(session, _host(host))
    except NotFound as exc:
        raise UserError(str(exc)) from None
    open_index(settings, engine)
    if as_json:
        print(
            json.dumps(
                {
                    "host": done.host,
                    "removed_at": iso(done.removed_at),
                    "already_removed": done.already_removed,
                    "documents": done.documents,
                    "actions": done.actions,
                    "flows": done.flows,
                    "version": done.version,
                },
                sort_keys=True,
            )
        )
    elif done.already_removed:
        output.info(f"{done.host} was removed already, at {iso(done.removed_at)}: nothing to do")
    else:
        output.info(
            f"removed {done.host}: {done.documents} documents, {done.actions} actions "
            f"and {done.flows} flows withdrawn (version {done.version}); "
            "`actiondex crawl` it to bring it back"
        )


def history(
    host: HostArg,
    limit: Annotated[
        int,
        typer.Option(min=1, max=MAX_PAGE, help=f"How many entries, newest first (1-{MAX_PAGE})."),
    ] = 20,
    as_json: JsonOpt = False,
) -> None:
    """Show what changed in a site's action set, newest first.

    Each entry: the version it produced, the actions (and flows, as flow:NAME) added,
    removed and changed (with the fields that changed), and why: crawl, ingest, tombstone
    (404/410 over 72 h), robots (robots.txt now disallows it) or removed (`sites remove`).
    """
    settings = load_settings()
    engine = open_store(settings)
    with transaction(engine) as session:  # the JSON of GET /sites/{host}/history
        data = site_history(session, _host(host), limit=limit)
    if data is None:
        raise UserError(f"no site {host[:300]!r} in the registry")
    if as_json:
        print(json.dumps(data, sort_keys=True))
    else:
        _table(data)


def _table(data: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=f"history of {data['host']}"
        + (f" (removed {data['removed_at']})" if data["removed_at"] else ""),
        title_justify="left",
    )
    for col in ("version", "at", "reason", "added", "removed", "changed", "actions"):
        table.add_column(
            col, overflow="fold", justify="right" if col in ("version", "actions") else "left"
        )
    for e in data["items"]:
        changed = ", ".join(
            f"{name} ({', '.join(fields)})" for name, fields in e["changed"].items()
        )
        table.add_row(
            str(e["version"]),
            e["at"][:19].replace("T", " "),
            e["reason"],
            escape(", ".join(e["added"]) or "-"),
            escape(", ".join(e["removed"]) or "-"),
            escape(changed or "-"),
            str(e["actions"]),
        )
    output.out.print(table)
    if not data["items"]:
        output.out.print("No changes recorded.")
    elif data["next_cursor"]:
        output.out.print("Older entries: --limit N, or GET /sites/{host}/history.")

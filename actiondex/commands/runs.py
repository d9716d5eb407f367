"""`actiondex runs`: the crawl runs, newest first, with their figures (as GET /runs)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from actiondex import output
from actiondex.commands.options import JsonOpt, load_settings
from actiondex.runtime import UserError, open_store
from registry.db.engine import reading
from registry.model.bounds import MAX_PAGE
from registry.model.statuses import RUN_STATUSES
from registry.store.runs import BadRunQuery, list_runs

COLUMNS = (
    "id",
    "status",
    "started_at",
    "seconds",
    "sites",
    "actions",
    "errors",
    "requests",
    "owner",
)


def runs(
    status: Annotated[
        str | None,
        typer.Option("--status", help=f"Only runs in this state ({', '.join(RUN_STATUSES)})."),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=MAX_PAGE, help="How many runs, newest first.")
    ] = 20,
    as_json: JsonOpt = False,
) -> None:
    """List crawl runs, newest first: status, owner, figures; aborted ones say why."""
    settings = load_settings()
    engine = open_store(settings)
    try:
        with reading(engine) as session:
            items, next_cursor = list_runs(session, limit=limit, status=status)
    except BadRunQuery as exc:
        raise UserError(f"--status: {exc}") from None
    finally:
        engine.dispose()
    if as_json:
        print(json.dumps({"items": items, "next_cursor": next_cursor}, sort_keys=True))
        return
    _table(items)


def _table(items: list[dict[str, Any]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    if not items:
        output.info("no crawl runs yet")
        return
    table = Table(title="crawl runs", title_justify="left")
    for column in COLUMNS:
        table.add_column(
            column, justify="right" if column not in ("status", "started_at", "owner") else "left"
        )
    for run in items:
        status = run["status"] + (f" ({run['aborted']})" if run.get("aborted") else "")
        cells = {**run, "status": status}
        table.add_row(*(escape("-" if cells[c] is None else str(cells[c])) for c in COLUMNS))
    output.out.print(table)

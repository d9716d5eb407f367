"""`actiondex ingest`: its arguments, help and exit code (the work: actiondex.ingest)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from actiondex import output
from actiondex.commands.options import JsonOpt, load_settings
from actiondex.runtime import open_index, open_store


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Manifest files or folders.")],
    origin: Annotated[
        str | None,
        typer.Option(
            help="The site the manifests belong to, e.g. https://shop.example "
            "[default: the site each manifest names: its site/url field]"
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Load manifest files (format sniffed from content) into the store and the index.

    A file that is no manifest (a JSON Schema, a README, a page without Schema.org) or
    names no site is skipped and listed with its reason; the others are stored. Exit code
    0 when every file was stored, 1 when any was skipped or no action could be stored from
    documents with errors, 2 on bad input.
    """
    from actiondex.ingest import ingest_paths

    settings = load_settings()
    engine = open_store(settings)
    summary = ingest_paths(engine, paths, origin)
    open_index(settings, engine)
    output.summary(summary, as_json)
    if summary["skipped"] or summary["errors"] and summary["actions"] == 0:
        raise typer.Exit(1)

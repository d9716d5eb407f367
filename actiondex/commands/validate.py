"""`actiondex validate`: its arguments, help and exit code (the work: actiondex.validating)."""

from __future__ import annotations

from typing import Annotated

import typer

from actiondex.commands.options import JsonOpt, PrivateOpt, ResolveOpt, load_settings


def validate(
    target: Annotated[
        str,
        typer.Argument(
            help="A manifest or page file, a folder of them (each file ingest would read), a "
            "document URL, or a site (domain or https://site/)."
        ),
    ],
    origin: Annotated[
        str | None,
        typer.Option(
            help="For a file: the site it will be published on, e.g. https://shop.example "
            "[default: the manifest's own site/url field]"
        ),
    ] = None,
    resolve: ResolveOpt = None,
    allow_private: PrivateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show what agents will see of a manifest or a site, and every problem with a fix.

    Nothing is stored. Exit code 0 without errors, 1 with errors, 2 on bad input.
    """
    from actiondex.validating import run

    if not run(target, origin, resolve or [], allow_private, load_settings, as_json):
        raise typer.Exit(1)

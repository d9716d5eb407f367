"""`actiondex submit`: its arguments, help and exit code (the work: actiondex.submitting)."""

from __future__ import annotations

from typing import Annotated

import typer

from actiondex.commands.options import JsonOpt, PrivateOpt, ResolveOpt, load_settings


def submit(
    url: Annotated[str, typer.Argument(help="The site to crawl: a domain or an http(s) URL.")],
    resolve: ResolveOpt = None,
    allow_private: PrivateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Queue a site for crawling, as POST /submissions does (without its rate limits).

    The URL must pass the intake check (no control characters, a port from 1 to 65535) and
    the crawler's address guard; only the site's homepage is stored. A host that already has
    a queued or crawling submission gets that one back, whole: the operator holds the store
    (POST /submissions tells another submitter only its host and status). With --json: the
    submission (as GET /submissions/{id} shows it) and "created". Exit code 0 when queued, 2
    on a refused URL.
    """
    from actiondex.submitting import run

    run(url, resolve or [], allow_private, load_settings, as_json)

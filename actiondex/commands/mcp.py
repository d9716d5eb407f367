"""`actiondex mcp`: the MCP tools over stdio, for an agent that starts the registry itself."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from actiondex import output
from actiondex.commands.options import load_settings
from actiondex.runtime import open_store
from registry.config import Settings


def mcp(
    print_config: Annotated[
        bool,
        typer.Option(
            "--print-config",
            help="Print a ready-to-paste client config (absolute paths to this actiondex and "
            "its data dir) and exit, serving nothing.",
        ),
    ] = False,
) -> None:
    """Serve the MCP tools (find_action, get_action, get_site, prepare_call) over stdio.

    stdout carries the protocol only; logs go to stderr. The index follows the store. A
    store that is new or holds no actions is served, with a warning on stderr.
    ACTIONDEX_MEANING_FIRST_STAGE=true: find by meaning as well as by words (as `serve`).
    """
    settings = load_settings()
    if print_config:
        print(json.dumps(client_config(settings), indent=2))
        return
    from actiondex.serving import serve_stdio

    database = settings.data_dir / "actiondex.db"
    new = settings.db_url == f"sqlite:///{database.resolve()}" and not database.exists()
    serve_stdio(settings, open_store(settings), new_store=new)


def client_config(settings: Settings) -> dict[str, object]:
    """An ``mcpServers`` entry that works whatever PATH and working directory a desktop app
    starts it with: the executable and every path absolute."""
    script = Path(sys.executable).parent / "actiondex"
    if script.is_file() and os.access(script, os.X_OK):
        command, args = str(script), []
    else:
        command, args = sys.executable, ["-m", "actiondex"]
    this_command = __name__.rsplit(".", 1)[-1]
    args += ["--data-dir", str(settings.data_dir.resolve()), this_command]
    env = {}
    if settings.database_url:  # the password stays out of what is printed
        env["ACTIONDEX_DATABASE_URL"] = output.safe_url(settings.database_url)
        if env["ACTIONDEX_DATABASE_URL"] != settings.database_url:
            output.info("actiondex: put the database password in place of *** in the config")
    if settings.index_dir is not None:
        env["ACTIONDEX_INDEX_DIR"] = str(settings.index_dir.resolve())
    server: dict[str, object] = {"command": command, "args": args}
    if env:
        server["env"] = env
    return {"mcpServers": {"actiondex": server}}

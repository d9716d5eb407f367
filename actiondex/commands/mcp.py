"""`actiondex mcp`: the MCP tools over stdio, for an agent that starts the registry itself."""

from __future__ import annotations

from actiondex.commands.options import load_settings
from actiondex.runtime import open_store


def mcp() -> None:
    """Serve the MCP tools (find_action, get_action, get_site, prepare_call) over stdio.

    stdout carries the protocol only; logs go to stderr. The index follows the store.
    ACTIONDEX_MEANING_FIRST_STAGE=true: find by meaning as well as by words (as `serve`).
    """
    from actiondex.serving import serve_stdio

    settings = load_settings()
    serve_stdio(settings, open_store(settings))

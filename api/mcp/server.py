"""The MCP server: the registry's tools, registered with their descriptions and annotations."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from mcp_types import ToolAnnotations

from api.mcp.tools import EFFECTS, Backing, Tools, aliased

INSTRUCTIONS = (
    "actiondex is an open registry of the actions websites offer AI agents, built by crawling "
    "the manifests sites publish. Call find_action with what your person wants done; "
    "get_action for one result's full description, get_site for everything a site offers, "
    "and prepare_call to turn an action and its input into the exact HTTP request to make. "
    "No tool here calls a site or sends anything: making the request is yours to do, with "
    "your person's approval where it is needed. " + EFFECTS
)

# Every tool only reads the registry: it changes nothing, anywhere (so calling it again gives
# the same answer until a crawl updates the store), and reaches no site ("open world").
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def _description(tool: Callable[..., Any]) -> str:
    """The docstring's paragraphs unwrapped, then what each effect means."""
    paragraphs = inspect.cleandoc(tool.__doc__ or "").split("\n\n")
    return "\n\n".join([*(" ".join(p.split()) for p in paragraphs), EFFECTS])


def build_server(backing: Callable[[], Backing]) -> MCPServer:
    """The tools over ``backing()``: called on each tool call, so the HTTP app can hand over
    its state before its lifespan has opened the index."""
    # WARNING: the SDK configures the root logger at this level (INFO would log each session).
    server: MCPServer = MCPServer(
        "actiondex",
        title="actiondex",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    tools = Tools(backing)
    for tool in (tools.find_action, tools.get_action, tools.get_site, tools.prepare_call):
        server.add_tool(
            aliased(tool),
            title=tool.__name__.replace("_", " ").capitalize(),
            description=_description(tool),
            annotations=READ_ONLY,
        )
    return server

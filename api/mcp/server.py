"""The MCP server: the registry's tools, registered with their descriptions and annotations."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import ValidationError

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


class ReadableTool(Tool):
    """A tool whose arguments, when they do not fit its input schema, are refused in GET
    /find's words (``limit: Input should be ...``, each problem naming its argument) rather
    than as pydantic's report (its model's name, input values, a link to pydantic's docs)."""

    async def run(self, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().run(arguments, *args, **kwargs)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise  # the tool's own refusal, already in words
            problems = argument_problems(exc.__cause__)
            raise ToolError(f"Error executing tool {self.name}: {problems}") from exc.__cause__


def argument_problems(exc: ValidationError) -> str:
    """``argument: message`` for each problem, as /find names its parameters."""
    said = []
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        message = str(error["msg"]).removeprefix("Value error, ")
        said.append(f"{where}: {message}")
    return "; ".join(dict.fromkeys(said))


def build_server(backing: Callable[[], Backing]) -> MCPServer:
    """The tools over ``backing()``: called on each tool call, so the HTTP app can hand over
    its state before its lifespan has opened the index."""
    # WARNING: the SDK configures the root logger at this level (INFO would log each session).
    tools = Tools(backing)
    return MCPServer(
        "actiondex",
        title="actiondex",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        tools=[
            ReadableTool.from_function(
                aliased(tool),
                title=tool.__name__.replace("_", " ").capitalize(),
                description=_description(tool),
                annotations=READ_ONLY,
            )
            for tool in (tools.find_action, tools.get_action, tools.get_site, tools.prepare_call)
        ],
    )

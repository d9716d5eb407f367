"""The tool definitions actiondex answers with ``as`` (registry.model.tooldefs makes them), as
models, so GET /find, GET /actions/{id} and find_action publish their schemas. Each is the
shape its framework takes as it is: nothing of actiondex's own is added to it (the APIs refuse
keys they do not know), so which action a tool calls is said beside it (``ids``).

- ``openai``: a function tool of OpenAI's Responses API (``client.responses.create(tools=...)``;
  the openai SDK's ``FunctionToolParam``). Chat Completions takes the same fields one level
  down: ``{"type": "function", "function": {name, description, parameters, strict}}``.
- ``anthropic``: a client tool of Anthropic's Messages API (the anthropic SDK's ``ToolParam``).
- ``mcp``: an MCP ``Tool`` as ``tools/list`` lists it (the mcp SDK's ``mcp_types.Tool``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from registry.model.public import absent
from registry.model.schemas import StrictModel

NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"  # OpenAI's and Anthropic's rule; MCP's allows more
Name = Field(pattern=NAME_PATTERN, description="Unique within one answer")


class OpenAITool(StrictModel):
    """A function tool of OpenAI's Responses API."""

    type: Literal["function"]
    name: str = Name
    description: str
    parameters: dict[str, Any] = Field(
        description="The input schema, strict mode's form when `strict` is true: every property "
        "required, an optional one nullable (null: leave it out when preparing the call)"
    )
    strict: bool = Field(description="False when the input schema has no strict form")


class AnthropicTool(StrictModel):
    """A client tool of Anthropic's Messages API."""

    name: str = Name
    description: str
    input_schema: dict[str, Any]


class McpToolAnnotations(StrictModel):
    """From the effect: read only for `read`; destructive for `delete` and `spend` (neither
    can be taken back); idempotent for `read` and the PUT and DELETE methods; every action
    reaches a site of the open world."""

    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class McpTool(StrictModel):
    """An MCP Tool."""

    name: str = Name
    title: str
    description: str
    inputSchema: dict[str, Any]
    outputSchema: dict[str, Any] | None = Field(
        None, exclude_if=absent, description="When the action's output schema is an object's"
    )
    annotations: McpToolAnnotations


ToolDefinition = OpenAITool | AnthropicTool | McpTool
AS_DESCRIPTION = (
    "Answer with tool definitions an agent framework loads as they are: `openai` (a Responses "
    "API function tool), `anthropic` (a Messages API tool), `mcp` (an MCP Tool)"
)

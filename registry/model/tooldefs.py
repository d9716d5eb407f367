"""Actions and flows as tool definitions agent frameworks load as they are: one function per
shape (``openai_tool``, ``anthropic_tool``, ``mcp_tool``; registry.model.tool_shapes says what
each is), ``definitions`` for a whole answer.

Each takes an action or a flow as every door shows it (registry.model.public.ActionFields,
as a dict) and the tool's name (``names``: the site and the action's name, valid for every
shape, unique within one answer). The description says the site, what calling it does (its
effect) and whether it needs the person's approval, and ends with the actiondex id that
prepare_call takes. A flow is a tool too: its input schema, its strongest step's effect, and
a description that lists its steps (the caller prepares and calls each step's action in turn).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from registry.model.effects import needs_approval
from registry.model.strict_schema import NotStrict, loose, strict

MAX_NAME = 64
MAX_DESCRIPTION = 1024  # what OpenAI takes of a function's description
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]+")
MEANING = {
    "read": "it only looks something up",
    "write": "it changes something of the person's that can be changed back",
    "send": "it sends a message or shares something in the person's name",
    "spend": "it pays or commits money",
    "delete": "it removes something",
}
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})  # RFC 9110 9.2.2

Item = dict[str, Any]


def _slug(text: str) -> str:
    return _NOT_NAME.sub("_", text).strip("_") or "action"


def names(items: Iterable[Item]) -> list[str]:
    """One name per item, ``<site>__<name>`` in the characters every shape allows: cut to 64
    with the id's first 8 digits when longer, and so too when the name is already taken in
    this answer (the same action read from two formats of one site)."""
    taken: set[str] = set()
    out = []
    for item in items:
        name = f"{_slug(item['site'])}__{_slug(item['name'])}"
        if len(name) > MAX_NAME or name in taken:
            name = f"{name[: MAX_NAME - 9]}_{item['id'][:8]}"
        taken.add(name)
        out.append(name)
    return out


def describe(item: Item) -> str:
    """What the tool does, where, and whether to ask the person first."""
    title = item.get("title") or item["name"]
    text = f"{title}, on {item['site']}."
    if item.get("description") and item["description"] != title:
        text += f" {item['description'].rstrip('.')}."
    effect = item["effect"]
    text += f" Effect {effect}: {MEANING.get(effect, 'it changes something')}."
    if needs_approval(effect):
        text += " Ask your person's approval before calling it."
    else:
        text += " Needs no approval."
    if item.get("kind") == "flow":
        steps = ", ".join(str(step.get("action")) for step in item.get("steps") or [])
        text += f" A flow of steps ({steps}): prepare and call each step's action in turn."
    tail = f" actiondex id {item['id']}."
    return text[: MAX_DESCRIPTION - len(tail)] + tail


def openai_tool(item: Item, name: str) -> dict[str, Any]:
    """A Responses API function tool: strict when the input schema has a strict form."""
    try:
        parameters, is_strict = strict(item["input_schema"]), True
    except NotStrict:
        parameters, is_strict = loose(item["input_schema"]), False
    return {
        "type": "function",
        "name": name,
        "description": describe(item),
        "parameters": parameters,
        "strict": is_strict,
    }


def anthropic_tool(item: Item, name: str) -> dict[str, Any]:
    """A Messages API tool: the input schema as it is (JSON Schema 2020-12), an object."""
    return {
        "name": name,
        "description": describe(item),
        "input_schema": loose(item["input_schema"]),
    }


def mcp_annotations(item: Item) -> dict[str, bool]:
    """MCP's hints from the effect (registry.model.tool_shapes.McpToolAnnotations says why)."""
    effect, method = item["effect"], (item.get("method") or "").upper()
    return {
        "readOnlyHint": effect == "read",
        "destructiveHint": effect in ("delete", "spend"),
        "idempotentHint": effect == "read" or method in IDEMPOTENT_METHODS,
        "openWorldHint": True,
    }


def mcp_tool(item: Item, name: str) -> dict[str, Any]:
    """An MCP Tool: an output schema only when it is an object's (what MCP before 2026-07-28
    allows, and what structuredContent is)."""
    tool = {
        "name": name,
        "title": item.get("title") or item["name"],
        "description": describe(item),
        "inputSchema": loose(item["input_schema"]),
        "annotations": mcp_annotations(item),
    }
    output = item.get("output_schema")
    if isinstance(output, dict) and output.get("type") == "object":
        tool["outputSchema"] = output
    return tool


# Each shape by the name ``as`` takes: its function's, "openai" for ``openai_tool``.
SHAPES: dict[str, Callable[[Item, str], dict[str, Any]]] = {
    make.__name__.removesuffix("_tool"): make for make in (openai_tool, anthropic_tool, mcp_tool)
}


def definitions(items: list[Item], shape: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(the tools in ``shape``, in the items' order; each tool's name -> its item's id)."""
    tool_names = names(items)
    make = SHAPES[shape]
    tools = [make(item, name) for item, name in zip(items, tool_names, strict=True)]
    return tools, {name: item["id"] for item, name in zip(items, tool_names, strict=True)}

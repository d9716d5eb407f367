"""Each tool-definition shape checked against what defines it: the openai SDK's
``FunctionToolParam`` (Responses API), the anthropic SDK's ``ToolParam``, the mcp SDK's
``mcp_types.Tool``; every schema against JSON Schema 2020-12's metaschema; a strict OpenAI
schema against strict mode's rules as OpenAI's Structured Outputs guide states them
("Supported schemas": all fields required, ``additionalProperties: false`` on every object,
the root an object and not ``anyOf``, the listed keywords only, at most 10 levels of nesting
and 5000 properties)."""

from __future__ import annotations

import re
from typing import Any

from anthropic.types import ToolParam
from jsonschema import Draft202012Validator
from mcp_types import Tool
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
OPENAI = TypeAdapter(FunctionToolParam)
ANTHROPIC = TypeAdapter(ToolParam)
# The keywords strict mode reads (Structured Outputs, "Supported schemas").
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
    "const", "description", "$ref", "$defs", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}  # fmt: skip


def check(shape: str, tool: dict[str, Any]) -> None:
    """``tool`` is a valid definition of ``shape``; raises AssertionError (or pydantic's
    ValidationError) naming what is wrong."""
    {"openai": check_openai, "anthropic": check_anthropic, "mcp": check_mcp}[shape](tool)


def check_openai(tool: dict[str, Any]) -> None:
    # The SDK's TypedDict drops keys it does not know: equal means there were none.
    assert OPENAI.validate_python(tool) == tool, tool
    assert NAME.match(tool["name"]), tool["name"]
    assert len(tool["description"]) <= 1024
    _object_schema(tool["parameters"])
    if tool["strict"]:
        assert tool["parameters"].get("type") == "object" and "anyOf" not in tool["parameters"]
        strict_problems = list(_strict_problems(tool["parameters"], 0))
        assert not strict_problems, (tool["name"], strict_problems)


def check_anthropic(tool: dict[str, Any]) -> None:
    assert ANTHROPIC.validate_python(tool) == tool, tool
    assert NAME.match(tool["name"]), tool["name"]
    _object_schema(tool["input_schema"])


def check_mcp(tool: dict[str, Any]) -> None:
    parsed = Tool.model_validate(tool)
    # Every key is one the model reads: dumped back, it is the same tool.
    assert parsed.model_dump(mode="json", by_alias=True, exclude_none=True) == tool, tool
    assert NAME.match(tool["name"])  # MCP allows more ("." too); these are OpenAI's as well
    _object_schema(tool["inputSchema"])
    if "outputSchema" in tool:
        _object_schema(tool["outputSchema"])


def _object_schema(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema.get("type") == "object", schema


def _strict_problems(node: Any, depth: int) -> Any:
    if not isinstance(node, dict):
        yield f"not a schema: {node!r}"
        return
    if depth > 10:
        yield "nested deeper than 10"
    if unknown := set(node) - STRICT_KEYWORDS:
        yield f"keywords strict mode does not read: {sorted(unknown)}"
    if node.get("type") == "object" or "properties" in node:
        if node.get("additionalProperties") is not False:
            yield "an object without additionalProperties: false"
        if sorted(node.get("required", [])) != sorted(node.get("properties", {})):
            yield "an object whose properties are not all required"
        for value in node.get("properties", {}).values():
            yield from _strict_problems(value, depth + 1)
    if "type" not in node and not {"anyOf", "$ref", "enum", "const"} & set(node):
        yield f"a schema of no type: {node!r}"
    for key in ("items",):
        if key in node:
            yield from _strict_problems(node[key], depth + 1)
    for item in node.get("anyOf", []):
        yield from _strict_problems(item, depth + 1)
    for item in node.get("$defs", {}).values():
        yield from _strict_problems(item, depth + 1)

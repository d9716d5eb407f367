"""Actions as tool definitions (registry.model.tooldefs): each shape validates against the SDK
that defines it (tests.helpers.tool_shapes), names are unique and valid, OpenAI's strict form
follows strict mode's rules or says strict false, and the description and MCP's annotations
follow from the effect."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from registry.model.strict_schema import MAX_DEPTH, NotStrict, strict
from registry.model.tooldefs import definitions, describe, names
from tests.helpers.tool_shapes import check

SHAPES = ("openai", "anthropic", "mcp")
SEARCH = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What to find"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        "sort": {"enum": ["price", "name"]},
        "when": {"type": "string", "format": "date"},
        "site": {"type": "string", "format": "uri"},
        "filters": {
            "type": "object",
            "properties": {"colour": {"type": "string"}, "in_stock": {"type": "boolean"}},
            "required": ["colour"],
        },
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5, "uniqueItems": True},
    },
    "required": ["q"],
}


def action(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "4b873d693a63d35e0a88ea6c",
        "kind": "action",
        "site": "shop.example",
        "name": "search_products",
        "title": "Search products",
        "description": "Find products by name.",
        "effect": "read",
        "needs_approval": False,
        "method": "GET",
        "input_schema": SEARCH,
        "output_schema": None,
    }
    return base | fields


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_validates_against_its_sdk(shape: str) -> None:
    items = [
        action(),
        action(id="1" * 24, name="checkout", effect="spend", method="POST"),
        action(id="2" * 24, input_schema={"type": "object"}),  # no parameters
        action(id="3" * 24, output_schema={"type": "object", "properties": {"n": {}}}),
        action(id="4" * 24, kind="flow", name="buy", effect="spend", steps=[{"action": "a"}]),
    ]
    tools, ids = definitions(items, shape)
    assert len(tools) == 5 and list(ids.values()) == [item["id"] for item in items]
    for tool in tools:
        check(shape, tool)


def test_openai_strict_form() -> None:
    (tool,), _ = definitions([action()], "openai")
    assert tool["strict"] is True and tool["type"] == "function"
    params = tool["parameters"]
    assert params["required"] == list(SEARCH["properties"]) and not params["additionalProperties"]
    props = params["properties"]
    assert props["q"] == {"type": "string", "description": "What to find"}  # lengths dropped
    assert props["limit"] == {"type": ["integer", "null"], "minimum": 1, "maximum": 50}
    assert props["sort"] == {"enum": ["price", "name", None]}
    assert props["when"] == {"type": ["string", "null"], "format": "date"}
    assert props["site"] == {"type": ["string", "null"]}  # "uri" is no strict-mode format
    assert props["filters"]["type"] == ["object", "null"]
    assert props["filters"]["required"] == ["colour", "in_stock"]
    assert props["filters"]["properties"]["in_stock"] == {"type": ["boolean", "null"]}
    assert props["tags"] == {"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 5}
    assert SEARCH["properties"]["q"]["minLength"] == 1  # the action's own schema is untouched


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"any": {}}},  # a value of any type
        {"type": "object", "properties": {"map": {"type": "object"}}},  # any properties
        {"type": "object", "additionalProperties": {"type": "string"}},  # a map at the root
        {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"minLength": 1}]}}},
        {"type": "object", "properties": {"x": {"not": {"type": "string"}}}},
        {"type": "object", "properties": {"x": {"$ref": "#/components/schemas/X"}}},
        {"type": "object", "properties": {"x": {"type": "array"}}},  # items of any kind
        {"type": "object", "properties": {"x": {"type": ["string", "object"]}}},
        {"type": "array", "items": {"type": "string"}},  # the root is no object
    ],
)
def test_a_schema_with_no_strict_form_is_published_strict_false(schema: dict[str, Any]) -> None:
    with pytest.raises(NotStrict):
        strict(schema)
    (tool,), _ = definitions([action(input_schema=schema)], "openai")
    assert tool["strict"] is False
    check("openai", tool)


def test_strict_keeps_local_refs_unions_and_bounds_depth() -> None:
    schema = {
        "type": "object",
        "properties": {
            "addr": {"$ref": "#/$defs/address"},
            "id": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "kind": {"const": "box"},
        },
        "required": ["addr"],
        "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }
    out = strict(schema)
    assert out["properties"]["addr"] == {"$ref": "#/$defs/address"}
    assert out["properties"]["id"] == {
        "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]
    }
    assert out["properties"]["kind"] == {"anyOf": [{"const": "box"}, {"type": "null"}]}
    assert out["$defs"]["address"]["required"] == ["city"]
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH + 1):
        deep = {"type": "object", "properties": {"x": deep}, "required": ["x"]}
    with pytest.raises(NotStrict):
        strict(deep)
    nested: Any = {"type": "string"}  # deeper than Python's recursion: refused, not crashed
    for _ in range(5000):
        nested = {"type": "array", "items": nested}
    (tool,), _ = definitions(
        [action(input_schema={"type": "object", "properties": {"a": nested}})], "openai"
    )
    assert tool["strict"] is False


def test_names_are_unique_valid_and_say_the_site() -> None:
    long_site = "a-very-long-subdomain-of-a-shop.shop-with-a-long-name.example:8443"
    items = [
        action(),
        action(id="1" * 24),  # the same name on the same site (another format)
        action(id="2" * 24, site="other.example"),
        action(id="3" * 24, site=long_site, name="x" * 64),
        action(id="4" * 24, name="ümlaut name/with spaces"),
    ]
    got = names(items)
    assert got[:3] == [
        "shop_example__search_products",
        "shop_example__search_products_11111111",
        "other_example__search_products",
    ]
    assert len(got[3]) == 64 and got[3].endswith("_33333333")
    assert got[4] == "shop_example__mlaut_name_with_spaces"
    assert len(set(got)) == len(got)


def test_the_description_says_site_effect_and_approval() -> None:
    text = describe(action(effect="spend", method="POST"))
    assert "on shop.example" in text and "Effect spend" in text and "pays" in text
    assert "approval before calling it" in text and text.endswith("4b873d693a63d35e0a88ea6c.")
    assert "Needs no approval" in describe(action())
    flow = describe(action(kind="flow", steps=[{"action": "find"}, {"action": "pay"}]))
    assert "A flow of steps (find, pay)" in flow
    long = describe(action(description="word " * 400))
    assert len(long) <= 1024 and long.endswith("4b873d693a63d35e0a88ea6c.")


@pytest.mark.parametrize(
    ("effect", "method", "hints"),
    [
        ("read", "GET", (True, False, True, True)),
        ("write", "POST", (False, False, False, True)),
        ("write", "PUT", (False, False, True, True)),
        ("send", "POST", (False, False, False, True)),
        ("spend", "POST", (False, True, False, True)),
        ("delete", "DELETE", (False, True, True, True)),
    ],
)
def test_mcp_annotations_follow_the_effect(effect: str, method: str, hints: tuple) -> None:
    (tool,), _ = definitions([action(effect=effect, method=method)], "mcp")
    got = tool["annotations"]
    assert (
        got["readOnlyHint"],
        got["destructiveHint"],
        got["idempotentHint"],
        got["openWorldHint"],
    ) == hints


def test_mcp_output_schema_only_when_it_is_an_object_s() -> None:
    shown = {"type": "object", "properties": {"total": {"type": "number"}}}
    (tool,), _ = definitions([action(output_schema=shown)], "mcp")
    assert tool["outputSchema"] == shown
    (tool,), _ = definitions([action(output_schema={"type": "array"})], "mcp")
    assert "outputSchema" not in tool


def test_conversion_leaves_the_action_as_it_was() -> None:
    item = action()
    before = copy.deepcopy(item)
    for shape in SHAPES:
        definitions([item], shape)
    assert item == before


def test_openapi_2_required_flags_become_json_schema() -> None:
    """Real sites (the corpus's Slack and Speak manifests) write ``"required": true`` on a
    property, which no JSON Schema validator takes: it becomes the object's ``required``."""
    schema = {
        "type": "object",
        "properties": {
            "channel": {"type": "string", "required": True},
            "text": {"type": "string", "required": False, "default": {"required": True}},
            "required": {"type": "object", "properties": {"x": {"type": "string"}}},
            "nested": {
                "type": "object",
                "properties": {"y": {"type": "integer", "required": True}},
                "required": ["z"],
            },
        },
        "$defs": {"required": {"type": "string"}},
    }
    for shape in SHAPES:
        (tool,), _ = definitions([action(input_schema=schema)], shape)
        check(shape, tool)
    (tool,), _ = definitions([action(input_schema=schema)], "anthropic")
    made = tool["input_schema"]
    assert made["required"] == ["channel"]
    assert made["properties"]["channel"] == {"type": "string"}
    assert made["properties"]["text"] == {"type": "string", "default": {"required": True}}
    assert made["properties"]["nested"]["required"] == ["z", "y"]
    assert made["properties"]["required"]["properties"] == {"x": {"type": "string"}}
    assert made["$defs"] == {"required": {"type": "string"}}
    (tool,), _ = definitions([action(input_schema=schema)], "openai")
    assert tool["strict"] is True
    assert tool["parameters"]["properties"]["channel"] == {"type": "string"}  # not nullable
    assert tool["parameters"]["properties"]["text"] == {"type": ["string", "null"]}

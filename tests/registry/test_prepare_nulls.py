"""Prepare with OpenAI strict tool definitions (issue 22 item 4): strict mode makes every
optional field a union with null, so an agent that loaded ``?as=openai`` sends ``null`` for each
field it leaves out. prepare takes such a null as absent (no type error, nothing sent), at
every level; a null for a required field stays an error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from registry.calls.prepare import PrepareError, prepare_call
from registry.model.tooldefs import definitions

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sku": {"type": "string"},
        "quantity": {"type": "integer", "minimum": 1},
        "note": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "gift": {"type": "boolean"}},
                "required": ["id"],
            },
        },
    },
    "required": ["sku"],
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "required": ["city"],
        }
    },
}


def _action(method: str = "POST") -> dict[str, Any]:
    return {
        "id": "a" * 24,
        "kind": "action",
        "name": "order",
        "title": "Order",
        "description": "Orders a thing",
        "site": "shop.example",
        "effect": "write",
        "method": method,
        "endpoint": "https://shop.example/orders",
        "input_schema": SCHEMA,
        "origin": "same",
        "verified": True,
    }


def test_the_strict_definition_says_null_for_the_fields_an_agent_leaves_out() -> None:
    (tool,), _ = definitions([_action()], "openai")
    assert tool["strict"] is True
    assert tool["parameters"]["properties"]["note"]["type"] == ["string", "null"]


def test_a_null_in_an_optional_field_is_left_out_at_every_level() -> None:
    sent = {
        "sku": "tin-9",
        "quantity": None,
        "note": None,
        "address": {"city": "Leeds", "zip": None},
        "lines": [{"id": "l1", "gift": None}, {"id": "l2", "gift": True}],
    }
    call = prepare_call(_action(), sent)
    assert json.loads(call["body"]) == {
        "sku": "tin-9",
        "address": {"city": "Leeds"},
        "lines": [{"id": "l1"}, {"id": "l2", "gift": True}],
    }
    query = prepare_call(_action("GET"), {"sku": "tin-9", "quantity": None, "note": None})
    assert query["url"] == "https://shop.example/orders?sku=tin-9"


@pytest.mark.parametrize(
    ("sent", "path"),
    [
        ({"sku": None}, "$.sku"),
        ({"sku": "tin-9", "address": {"city": None}}, "$.address.city"),
        ({"sku": "tin-9", "lines": [{"id": None}]}, "$.lines[0].id"),
    ],
)
def test_a_null_in_a_required_field_stays_an_error(sent: dict[str, Any], path: str) -> None:
    with pytest.raises(PrepareError) as caught:
        prepare_call(_action(), sent)
    assert caught.value.code == "invalid-input"
    assert [p["path"] for p in caught.value.problems] == [path]


def test_a_null_the_schema_does_not_declare_is_still_checked() -> None:
    closed = {**SCHEMA, "additionalProperties": False}
    with pytest.raises(PrepareError) as caught:
        prepare_call({**_action(), "input_schema": closed}, {"sku": "x", "other": None})
    assert caught.value.problems[0]["path"] == "$"

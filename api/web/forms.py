"""Forms: reading a posted one within a bound, and the prepare-call form of an action (one
field per top-level input, each value turned back into the JSON type its schema asks for)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from fastapi import Request

from api.bodies import bounded_body
from api.web.shape import type_of

MAX_FIELDS = 50  # inputs in one prepare form; a schema with more shows the first ones
MAX_PREPARE_FORM = 256 * 1024  # bytes of a posted prepare form


async def read_form(request: Request, limit: int) -> dict[str, list[str]] | None:
    """A posted ``application/x-www-form-urlencoded`` body by name, or None past ``limit``
    bytes (read no further than that)."""
    body = await bounded_body(request, limit)
    if body is None:
        return None
    return parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)


@dataclass
class InputField:
    name: str
    type: str  # the schema's type in words
    required: bool
    description: str
    widget: str  # "text", "select" (enum, boolean) or "json" (arrays, objects, anything)
    options: list[str]  # a select's choices, as the form sends them
    value: str = ""


def input_fields(schema: Any, values: dict[str, list[str]] | None = None) -> list[InputField]:
    """The form's fields for ``schema``'s top-level properties, filled from ``values``."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    fields = []
    for name, sub in list(schema["properties"].items())[:MAX_FIELDS]:
        sub = sub if isinstance(sub, dict) else {}
        kind = type_of(sub)
        options: list[str] = []
        if isinstance(sub.get("enum"), list):
            options = [v if isinstance(v, str) else json.dumps(v) for v in sub["enum"][:100]]
        elif kind == "boolean":
            options = ["true", "false"]
        widget = (
            "select" if options else ("text" if kind in ("string", "integer", "number") else "json")
        )
        value = ((values or {}).get(name) or [""])[0]
        fields.append(
            InputField(
                str(name),
                kind,
                name in required,
                str(sub.get("description") or sub.get("title") or ""),
                widget,
                options,
                value,
            )
        )
    return fields


def to_input(schema: Any, values: dict[str, list[str]]) -> dict[str, Any]:
    """The input object the form says: blank fields left out, each value read as its
    schema's type where it can be (``"2"`` is 2 for an integer); what cannot be read stays a
    string, for the input schema's check to name."""
    given: dict[str, Any] = {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for field in input_fields(schema, values):
        text = field.value
        if not text.strip():
            continue
        sub = properties.get(field.name) if isinstance(properties, dict) else None
        given[field.name] = _typed(text, field, sub if isinstance(sub, dict) else {})
    return given


def _typed(text: str, field: InputField, schema: dict[str, Any]) -> Any:
    kinds = set(field.type.split(" or "))
    if field.widget == "select" and isinstance(schema.get("enum"), list):
        for choice in schema["enum"]:  # the enum's own value, whatever its JSON type
            if text == (choice if isinstance(choice, str) else json.dumps(choice)):
                return choice
    if "string" in kinds and field.widget != "json":
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    # "1e400" reads as a float infinity, which no JSON document can hold: keep the text.
    return value if value == value and value not in (float("inf"), float("-inf")) else text

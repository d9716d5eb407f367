"""What the templates show of a JSON Schema and a cost, as plain rows and words.

Schemas come from sites, so everything here is bounded: at most MAX_ROWS rows, nested at most
MAX_DEPTH levels; whatever lies past that is summed up in one last row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_ROWS = 100
MAX_DEPTH = 4
# Keywords shown in the "rules" column, in this order, as "name: value".
RULES = (
    "enum",
    "const",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "default",
)


@dataclass
class Field:
    path: str  # "sku", "address.city", "items[]"
    type: str
    required: bool
    description: str
    rules: list[str]


def type_of(schema: Any) -> str:
    """A schema's type in words: "string", "integer or null", "any"."""
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind) or "any"
    if isinstance(kind, str):
        return kind
    if "enum" in schema:
        return "one of a list"
    return "object" if isinstance(schema.get("properties"), dict) else "any"


def _rules(schema: dict[str, Any]) -> list[str]:
    shown = []
    for name in RULES:
        if name in schema:
            value = schema[name]
            if isinstance(value, list):
                value = ", ".join(str(v) for v in value[:20]) + (" ..." if len(value) > 20 else "")
            shown.append(f"{name}: {value}")
    return shown


def fields(schema: Any) -> list[Field]:
    """The rows of an input schema's table: each property, nested ones as dotted paths."""
    rows: list[Field] = []
    _walk(schema, "", rows, 0)
    if len(rows) > MAX_ROWS:
        rest = len(rows) - MAX_ROWS
        rows = rows[:MAX_ROWS] + [Field("...", "", False, f"{rest} more not shown", [])]
    return rows


def _walk(schema: Any, prefix: str, rows: list[Field], depth: int) -> None:
    if not isinstance(schema, dict) or depth >= MAX_DEPTH or len(rows) > MAX_ROWS:
        return
    properties = schema.get("properties")
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    if isinstance(properties, dict):
        for name, sub in properties.items():
            path = f"{prefix}{name}"
            sub = sub if isinstance(sub, dict) else {}
            description = sub.get("description") or sub.get("title") or ""
            rows.append(Field(path, type_of(sub), name in required, str(description), _rules(sub)))
            _walk(sub, path + ".", rows, depth + 1)
    items = schema.get("items")
    if isinstance(items, dict) and isinstance(items.get("properties"), dict):
        _walk(items, prefix.rstrip(".") + "[].", rows, depth + 1)


def field_names(schema: Any, limit: int = 12) -> list[tuple[str, bool]]:
    """(name, required) of the top-level inputs, for a result's one-line summary."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return [(str(name), name in required) for name in list(schema["properties"])[:limit]]


def cost_text(cost: Any) -> str:
    """A cost in words: "3.95 EUR", or its fields when it has another shape."""
    if not cost:
        return ""
    if not isinstance(cost, dict):
        return str(cost)
    if "amount" in cost and "currency" in cost:
        text = f"{cost['amount']} {cost['currency']}"
        rest = {k: v for k, v in cost.items() if k not in ("amount", "currency")}
    else:
        text, rest = "", cost
    extra = ", ".join(f"{k}: {v}" for k, v in rest.items())
    return f"{text} ({extra})" if text and extra else text or extra


def request_text(planned: dict[str, Any]) -> str:
    """A planned request as HTTP writes it: the request line, the headers, a blank line and
    the body."""
    lines = [f"{planned['method']} {planned['url']}"]
    lines += [f"{name}: {value}" for name, value in (planned.get("headers") or {}).items()]
    if planned.get("body") is not None:
        lines += ["", str(planned["body"])]
    return "\n".join(lines)

"""An action's input schema as OpenAI's strict mode takes it (Structured Outputs, "Supported
schemas"): every object lists all its properties in ``required`` and says
``"additionalProperties": false``; an optional property becomes a union with null (null then
means "left out"); only the keywords strict mode reads are kept (per type: string ``pattern``
and the listed ``format``s; number ``minimum``/``maximum``/``exclusive*``/``multipleOf``;
array ``minItems``/``maxItems``; and ``anyOf``, ``enum``, ``const``, local ``$ref``/``$defs``,
``description``). The others are dropped, not failed on: prepare_call still checks the input
against the whole schema.

A schema strict mode cannot say (a value of any type, a free-form map, ``allOf``/``not``/
``if``, a ``$ref`` outside the schema, more than the documented limits) is ``NotStrict``:
the tool is then published with ``strict: false`` and its schema as it is (``loose``).
"""

from __future__ import annotations

from typing import Any

# OpenAI's documented limits on one strict schema.
MAX_DEPTH = 10  # levels of nesting (OpenAI counts objects; here every schema level)
MAX_PROPERTIES = 5000  # object properties in all
MAX_ENUM_VALUES = 1000  # enum values in all
MAX_STRING_CHARS = 120_000  # property names, definition names, enum and const values
FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
SCALAR_TYPES = frozenset({"string", "number", "integer", "boolean", "null"})
KEPT = {
    "string": ("pattern",),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("minItems", "maxItems"),
}
UNSAYABLE = ("not", "if", "then", "else", "dependentSchemas", "dependentRequired",
             "patternProperties", "unevaluatedProperties", "propertyNames", "prefixItems",
             "contains")  # fmt: skip


# Keywords whose value is a map of names to schemas, and those whose value is data.
MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
DATA = frozenset({"enum", "const", "default", "examples", "example"})


class NotStrict(ValueError):
    """The schema says something strict mode cannot."""


class _Budget:
    def __init__(self) -> None:
        self.properties = self.enums = self.chars = 0

    def spend(self, properties: int = 0, enums: int = 0, chars: int = 0) -> None:
        self.properties += properties
        self.enums += enums
        self.chars += chars
        if (
            self.properties > MAX_PROPERTIES
            or self.enums > MAX_ENUM_VALUES
            or self.chars > MAX_STRING_CHARS
        ):
            raise NotStrict("larger than strict mode's limits")


def strict(schema: Any) -> dict[str, Any]:
    """``schema`` as strict mode takes it; raises NotStrict if it cannot be said so. The root
    is an object: one with no properties declared takes no arguments."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise NotStrict("the root is not an object")
    budget = _Budget()
    out = _object(schema, 0, budget, root=True)
    if isinstance(schema.get("$defs"), dict):
        budget.spend(chars=sum(len(k) for k in schema["$defs"]))
        out["$defs"] = {k: _node(v, 1, budget) for k, v in schema["$defs"].items()}
    return out


def loose(schema: Any) -> dict[str, Any]:
    """``schema`` as it is, its root made an object with properties (a function's parameters
    always are one), and made valid JSON Schema where sites write ``required`` as OpenAPI 2
    did (``"required": true`` on a property: named in its object's ``required``)."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return {"type": "object", "properties": {}}
    # Top-level x- keys are the registry's notes to its planner (x-jsonrpc: how prepare calls
    # an A2A skill or MCP tool), not part of what an agent sends.
    schema = {k: v for k, v in schema.items() if not (isinstance(k, str) and k.startswith("x-"))}
    return {"type": "object", "properties": {}} | _valid_required(schema)


def _valid_required(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` whose every ``required`` is a list of names. Iterative: a schema
    may nest as deep as its JSON could."""
    root: dict[str, Any] = {}
    stack: list[tuple[Any, Any, Any]] = [(schema, root, None)]
    while stack:
        source, target, key = stack.pop()
        schema_here = isinstance(source, dict) and key not in MAPS
        for name, value in source.items() if isinstance(source, dict) else enumerate(source):
            if (schema_here and name in DATA) or not isinstance(value, dict | list):
                copied = value  # a value, not a schema: as it is
            else:
                copied = {} if isinstance(value, dict) else []
                stack.append((value, copied, name))
            if isinstance(target, list):
                target.append(copied)
            else:
                target[name] = copied
        if schema_here:
            names = required_names(source)
            target.pop("required", None)
            if names:
                target["required"] = names
    return root


def _node(node: Any, depth: int, budget: _Budget) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise NotStrict("a boolean schema")
    if depth > MAX_DEPTH:
        raise NotStrict(f"nested deeper than {MAX_DEPTH}")
    if found := [key for key in UNSAYABLE if key in node]:
        raise NotStrict(f"{found[0]} has no strict form")
    out: dict[str, Any] = {}
    if isinstance(node.get("description"), str):
        out["description"] = node["description"]
    all_of = node.get("allOf")
    if all_of is not None:  # one schema under allOf is that schema (generators write it so)
        if not isinstance(all_of, list) or len(all_of) != 1:
            raise NotStrict("allOf has no strict form")
        return _node(all_of[0], depth + 1, budget) | out
    if "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/$defs/")):
            raise NotStrict("a $ref outside the schema's $defs")
        return {"$ref": ref} | out
    union = node.get("anyOf", node.get("oneOf"))
    if union is not None:  # oneOf read as anyOf: the input check still holds it to one
        if not isinstance(union, list) or not union or "type" in node:
            raise NotStrict("a union strict mode cannot say")
        return {"anyOf": [_node(item, depth + 1, budget) for item in union]} | out
    return _typed(node, depth, budget) | out


def _typed(node: dict[str, Any], depth: int, budget: _Budget) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("enum", "const"):
        if key in node:
            values = node[key] if key == "enum" else [node[key]]
            if not isinstance(values, list) or not all(_scalar(v) for v in values):
                raise NotStrict(f"a {key} strict mode cannot say")
            budget.spend(enums=len(values), chars=sum(len(str(v)) for v in values))
            out[key] = node[key]
    kind = node.get("type")
    if kind is None and not out:
        raise NotStrict("a value of any type")
    if kind == "object":
        return _object(node, depth, budget) | out
    if kind == "array":
        if "items" not in node:
            raise NotStrict("an array of any values")
        items = _node(node["items"], depth + 1, budget)
        return {"type": "array", "items": items, **_kept(node, "array")} | out
    kinds = kind if isinstance(kind, list) else [] if kind is None else [kind]
    if not all(isinstance(k, str) and k in SCALAR_TYPES for k in kinds):
        raise NotStrict(f"type {kind!r} has no strict form")
    if kind is not None:
        out["type"] = kind
    for each in kinds:
        out.update(_kept(node, each))
    if "string" in kinds and node.get("format") in FORMATS:
        out["format"] = node["format"]
    return out


def _object(
    node: dict[str, Any], depth: int, budget: _Budget, root: bool = False
) -> dict[str, Any]:
    properties = node.get("properties") or {}
    extra = node.get("additionalProperties")
    if not isinstance(properties, dict) or (not properties and not root and extra is not False):
        raise NotStrict("an object of any properties")
    if not properties and extra not in (None, False):
        raise NotStrict("a map of any keys")
    budget.spend(properties=len(properties), chars=sum(len(k) for k in properties))
    required = required_names(node)
    converted = {}
    for key, value in properties.items():
        schema = _node(value, depth + 1, budget)
        converted[key] = schema if key in required else _nullable(schema)
    return {
        "type": "object",
        "properties": converted,
        "required": list(converted),
        "additionalProperties": False,
    }


def required_names(node: dict[str, Any]) -> list[str]:
    """The properties ``node`` requires: its ``required`` list, and those that say
    ``"required": true`` themselves (OpenAPI 2's way, which sites still write)."""
    listed = node.get("required")
    names = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
    properties = node.get("properties")
    if isinstance(properties, dict):
        names += [
            name
            for name, value in properties.items()
            if isinstance(value, dict) and value.get("required") is True and name not in names
        ]
    return names


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null: how strict mode says a property may be left out."""
    kind = schema.get("type")
    if "const" in schema or "$ref" in schema or (kind is None and "enum" not in schema):
        if "anyOf" in schema:
            return schema | {"anyOf": [*schema["anyOf"], {"type": "null"}]}
        return {"anyOf": [schema, {"type": "null"}]}
    out = dict(schema)
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _kept(node: dict[str, Any], kind: str) -> dict[str, Any]:
    return {key: node[key] for key in KEPT.get(kind, ()) if key in node}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)

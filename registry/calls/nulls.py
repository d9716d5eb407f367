"""Nulls that mean "left out": OpenAI's strict mode makes every optional property a union with
null (registry.model.strict_schema), so an agent loading our strict tool definitions sends
``null`` for each field it leaves out. For registry.calls.prepare: such a null is taken as
absent, at every level of the input (nested objects, array items, local ``$ref``, ``allOf``,
``anyOf``/``oneOf``), so it is neither a type error nor sent. A null a schema requires stays
in the input, and the input check says whether the schema accepts it.

A property counts as optional when some schema applying to its object declares it and none
requires it. The walk is bounded: the input is bounded already (input_check.size_problems),
and a value is matched against at most MAX_NODES schemas.
"""

from __future__ import annotations

from typing import Any

from registry.model.strict_schema import required_names

MAX_NODES = 64  # schemas that apply to one value, through $ref, allOf and anyOf


def nulls_left_out(schema: Any, value: Any) -> Any:
    """``value`` with every null an optional property holds left out."""
    if not isinstance(schema, dict):
        return value
    return _Walk(schema).walk([schema], value)


class _Walk:
    """One input's walk; the schemas applying to a set of schemas are resolved once, however
    many values they apply to (6,000 items of one array: one resolution)."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.resolved: dict[tuple[int, ...], list[dict[str, Any]]] = {}

    def walk(self, start: list[Any], value: Any) -> Any:
        if not isinstance(value, dict | list) or not start:
            return value
        key = tuple(id(node) for node in start)
        if key not in self.resolved:
            self.resolved[key] = _applying(self.root, start)
        nodes = self.resolved[key]
        if isinstance(value, list):
            items = [n["items"] for n in nodes if isinstance(n.get("items"), dict)]
            return [self.walk(items, item) for item in value] if items else value
        objects = [n for n in nodes if isinstance(n.get("properties"), dict)]
        required = {name for n in nodes for name in required_names(n)}
        out = {}
        for name, item in value.items():
            declared = [n["properties"][name] for n in objects if name in n["properties"]]
            if item is None and declared and name not in required:
                continue  # strict mode's "left out"
            out[name] = self.walk([d for d in declared if isinstance(d, dict)], item)
        return out


def _applying(root: dict[str, Any], start: list[Any]) -> list[dict[str, Any]]:
    """The schemas in ``start`` and those they bring in: a local ``$ref``, ``allOf``,
    ``anyOf`` and ``oneOf`` members (each schema once, MAX_NODES at most)."""
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    stack = list(reversed(start))
    while stack and len(found) < MAX_NODES:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        target = _local(root, node.get("$ref"))
        members = [m for key in ("allOf", "anyOf", "oneOf") for m in _list(node.get(key))]
        stack.extend(reversed([target, *members]))
    return found


def _local(root: dict[str, Any], ref: Any) -> Any:
    """What a ``#`` or ``#/a/b`` reference names in ``root``; None for anything else."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        return None
    node: Any = root
    for part in ref[2:].split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []

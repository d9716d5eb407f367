"""Bounds on a site's input schema, for registry.calls.input_check and the normaliser's rules.

A site's schema is data: checking an input against it must never reach anything but the
schema, and must cost bounded time whatever the site wrote.
- Nothing is fetched. Every validator gets NO_RETRIEVAL, a ``referencing.Registry`` that
  retrieves nothing, instead of jsonschema's default (which fetched any http, https or
  file:// ``$ref`` with urllib). ``schema_problem`` refuses a schema whose ``$ref`` or
  ``$dynamicRef`` points outside itself (an ``$id`` is only a name here, never an address)
  or at something that is not a schema (a pointer landing on a string).
- Bounded size: MAX_SCHEMA_BYTES of JSON, references nested at most MAX_REF_DEPTH deep, and at
  most MAX_EXPANDED schema nodes with every reference expanded, so a chain of doubling
  ``allOf``/``$ref`` (2^n nodes in n lines) is refused before it is evaluated.
- Bounded work per check: registry.calls.check_budget.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

MAX_SCHEMA_BYTES = 64 * 1024
MAX_REF_DEPTH = 32
MAX_EXPANDED = 20_000

# Where validation looks for subschemas (2020-12, and draft-07's spellings a site may use).
_ONE = (
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
)
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_MAPS = ("properties", "patternProperties", "dependentSchemas")
_KINDS = {str: "string", int: "number", float: "number", list: "list", type(None): "null"}
_IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"})


def _retrieve_nothing(uri: str) -> Resource[Any]:
    # referencing marks its attrs classes with the old __dataclass_transform__ spelling, which
    # mypy does not read: it sees no fields (as for Registry below).
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


NO_RETRIEVAL: Registry[Any] = Registry(retrieve=_retrieve_nothing)  # type: ignore[call-arg]


class _Refused(Exception):
    pass


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot be used to check input (too large, a reference outside itself
    or onto a non-schema, references too deep or looping, too many nodes once expanded);
    None if usable."""
    return size_problem(schema) or reference_problem(schema)


def size_problem(schema: Any) -> str | None:
    if not isinstance(schema, dict | bool):
        return "its input schema is not a JSON object"
    try:
        size = len(json.dumps(schema, ensure_ascii=False, separators=(",", ":")).encode())
    except (TypeError, ValueError, RecursionError):
        return "its input schema is not JSON"
    if size > MAX_SCHEMA_BYTES:
        return f"its input schema is larger than {MAX_SCHEMA_BYTES} bytes"
    return None


def reference_problem(schema: Any) -> str | None:
    try:
        resolver = NO_RETRIEVAL.resolver_with_root(DRAFT202012.create_resource(schema))
        _Expansion().node(schema, resolver, (), frozenset())
    except _Refused as exc:
        return str(exc)
    except RecursionError:
        return "its input schema is nested too deeply"
    except Exception:  # referencing's errors on an $id that is no URI
        return "its input schema's references cannot be followed (an $id that is no URI?)"
    return None


class _Expansion:
    """The schema's size with every reference expanded, each target counted once per path
    (memoised, so the walk itself is linear); a reference back into its own chain counts 1,
    unless no keyword between descends into the input: that loop would never end."""

    def __init__(self) -> None:
        self.sizes: dict[int, tuple[int, int]] = {}  # id(target) -> (size, reference height)

    def node(
        self, schema: Any, resolver: Any, chain: tuple[int, ...], loop: frozenset[int]
    ) -> tuple[int, int]:
        """``loop``: the references followed since the last keyword that descends."""
        if not isinstance(schema, dict):
            return 1, 0
        if isinstance(schema.get("$id"), str):
            resolver = resolver.in_subresource(DRAFT202012.create_resource(schema))
        total, height = 1, 0
        for key in ("$ref", "$dynamicRef"):
            if isinstance(schema.get(key), str):
                size, deep = self.ref(schema[key], resolver, chain, loop)
                total, height = total + size, max(height, deep)
        for sub, in_place in _subschemas(schema):
            size, deep = self.node(sub, resolver, chain, loop if in_place else frozenset())
            total, height = total + size, max(height, deep)
            if total > MAX_EXPANDED:
                raise _Refused(
                    f"its input schema expands to more than {MAX_EXPANDED} nodes "
                    "once its references are followed"
                )
        return total, height

    def ref(
        self, ref: str, resolver: Any, chain: tuple[int, ...], loop: frozenset[int]
    ) -> tuple[int, int]:
        try:
            resolved = resolver.lookup(ref)
        except Unresolvable:
            raise _Refused(
                f"its $ref {ref[:200]!r} is not in the schema itself (references are never fetched)"
            ) from None
        except Exception:  # referencing reads the target as a schema and fails
            raise _Refused(f"its $ref {ref[:200]!r} does not name a schema") from None
        target = resolved.contents
        if not isinstance(target, dict | bool):
            raise _Refused(
                f"its $ref {ref[:200]!r} names a {_KINDS.get(type(target), 'value')}, not a schema"
            )
        key = id(target)
        if key in loop:
            raise _Refused(
                f"its $ref {ref[:200]!r} refers back to itself without descending into the input"
            )
        if key in chain:
            return 1, 0  # recursion: validation descends only as deep as the input
        if len(chain) >= MAX_REF_DEPTH:
            raise _Refused(f"its references are nested more than {MAX_REF_DEPTH} deep")
        if key not in self.sizes:
            size, height = self.node(target, resolved.resolver, (*chain, key), loop | {key})
            self.sizes[key] = (size, height + 1)
        size, height = self.sizes[key]
        if len(chain) + height > MAX_REF_DEPTH:
            raise _Refused(f"its references are nested more than {MAX_REF_DEPTH} deep")
        return size, height


def _subschemas(schema: dict[str, Any]) -> Iterator[tuple[Any, bool]]:
    """Each subschema validation applies, and whether it applies to the same value."""
    for key in _ONE:
        if isinstance(schema.get(key), dict | bool):
            yield schema[key], key in _IN_PLACE
    for key in _LISTS:
        if isinstance(schema.get(key), list):
            yield from ((sub, key in _IN_PLACE) for sub in schema[key])
    for key in _MAPS:
        if isinstance(schema.get(key), dict):
            yield from ((sub, key in _IN_PLACE) for sub in schema[key].values())

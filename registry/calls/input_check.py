"""An agent's input checked against an action's input schema (JSON Schema, Draft 2020-12): every
problem, each with the JSON path of the value at fault. For registry.calls.prepare.

The schema comes from a site, so it is untrusted: its regular expressions run in RE2, in linear
time (registry.calls.safe_patterns); nothing it references is ever fetched, and its size and
references (registry.model.schema_bounds) and the work of one check
(registry.calls.check_budget) are bounded. A schema that is not valid JSON Schema, names a
``$ref`` it does not hold or is too large is reported as the action's fault (SchemaProblem); an
input that would take too long to check, as TooComplex."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import attrs
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError
from referencing.exceptions import Unresolvable

from registry.calls.check_budget import TooComplex, budget, budgeted, unique_items
from registry.calls.safe_patterns import KEYWORDS, rewritten
from registry.model.schema_bounds import NO_RETRIEVAL, reference_problem, size_problem

__all__ = [
    "MAX_DEPTH",
    "MAX_INPUT_BYTES",
    "SchemaProblem",
    "TooComplex",
    "input_problems",
    "json_path",
    "size_problems",
]

MAX_INPUT_BYTES = 64 * 1024
MAX_DEPTH = 32
MAX_PROBLEMS = 100


class SchemaProblem(Exception):
    """The action's own schema cannot be used to check input."""


def json_path(parts: Any) -> str:
    path = "$"
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", str(part)):
            path += f".{part}"
        else:
            path += "[" + repr(str(part)).replace("'", '"') + "]"
    return path


def _required(
    validator: Any, required: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """As the standard keyword, but at the missing field's own path ("$.sku", not "$")."""
    if not validator.is_type(instance, "object") or not isinstance(required, list):
        return
    for name in required:
        if isinstance(name, str) and name not in instance:
            yield ValidationError(f"{name!r} is required", path=[name])


# Every keyword spends the check's budget; uniqueItems is linear, the patterns RE2's.
# (types-jsonschema leaves validators.extend unannotated, so the class it makes is Any.)
_Validator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    budgeted(
        {
            **Draft202012Validator.VALIDATORS,
            "required": _required,
            "uniqueItems": unique_items,
            **KEYWORDS,
        }
    ),
)
_FIELDS = [(field.name, field.alias) for field in attrs.fields(_Validator) if field.init]


def _evolve(self: Any, **changes: Any) -> Any:
    """As jsonschema's evolve, but always this class: its own picks the stock validator a
    subschema's ``$schema`` names, which has neither the budget nor the linear uniqueItems
    nor the RE2 patterns."""
    changes.setdefault("schema", self.schema)
    for name, alias in _FIELDS:
        changes.setdefault(alias, getattr(self, name))
    return type(self)(**changes)


_Validator.evolve = _evolve
# The metaschema's references are the ones jsonschema ships; none is fetched either.
_META = Draft202012Validator(
    Draft202012Validator.META_SCHEMA,
    registry=NO_RETRIEVAL,
    format_checker=Draft202012Validator.FORMAT_CHECKER,
)


def size_problems(value: Any) -> list[dict[str, str]]:
    """Whether ``value`` is an object within the size and depth bounds."""
    if not isinstance(value, dict):
        return [{"path": "$", "message": "input must be a JSON object"}]
    stack, size = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return [{"path": "$", "message": f"input nested deeper than {MAX_DEPTH} levels"}]
        if isinstance(item, dict):
            size += sum(len(str(key)) + 4 for key in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, float) and not math.isfinite(item):
            return [{"path": "$", "message": "input holds NaN or Infinity, which JSON has not"}]
        else:
            size += len(str(item)) + 2
        if size > MAX_INPUT_BYTES:
            return [{"path": "$", "message": f"input larger than {MAX_INPUT_BYTES} bytes"}]
    return []


def input_problems(schema: dict[str, Any], value: dict[str, Any]) -> list[dict[str, str]]:
    """Every way ``value`` breaks ``schema`` (at most MAX_PROBLEMS), by path then message.
    SchemaProblem when the schema itself is unusable; TooComplex past the check's budget."""
    if (problem := size_problem(schema)) is not None:
        raise SchemaProblem(problem)
    if (error := next(_META.iter_errors(schema), None)) is not None:
        raise SchemaProblem(f"its input schema is not valid JSON Schema: {error.message}")
    if (problem := reference_problem(schema)) is not None:
        raise SchemaProblem(problem)
    try:
        validator = _Validator(
            rewritten(schema),
            registry=NO_RETRIEVAL,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        found = []
        with budget():
            for error in validator.iter_errors(value):
                found.append({"path": json_path(error.absolute_path), "message": error.message})
                if len(found) >= MAX_PROBLEMS:
                    break
    except SchemaError as exc:
        raise SchemaProblem(f"its input schema is not valid JSON Schema: {exc.message}") from None
    except (Unresolvable, RecursionError) as exc:
        raise SchemaProblem(f"its input schema cannot be resolved: {exc}") from None
    return sorted(found, key=lambda p: (p["path"], p["message"]))

"""An agent's input checked against an action's input schema (JSON Schema, Draft 2020-12):
every problem, each with the JSON path of the value at fault. For registry.prepare.

The schema comes from a site, so it is untrusted: its regular expressions run in RE2, in
linear time (registry.safe_patterns), and a schema that is not valid JSON Schema, or names a
``$ref`` it does not hold, is reported as the action's fault.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError
from referencing.exceptions import Unresolvable

from registry.safe_patterns import KEYWORDS, rewritten

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


def _required(validator: Any, required: Any, instance: Any, schema: Any
              ) -> Iterator[ValidationError]:
    """As the standard keyword, but at the missing field's own path ("$.sku", not "$")."""
    if not validator.is_type(instance, "object") or not isinstance(required, list):
        return
    for name in required:
        if isinstance(name, str) and name not in instance:
            yield ValidationError(f"{name!r} is required", path=[name])


_Validator = validators.extend(Draft202012Validator, {"required": _required, **KEYWORDS})


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
    SchemaProblem when the schema itself is unusable."""
    try:
        _Validator.check_schema(schema)
        validator = _Validator(rewritten(schema),
                               format_checker=Draft202012Validator.FORMAT_CHECKER)
        found = []
        for error in validator.iter_errors(value):
            found.append({"path": json_path(error.absolute_path), "message": error.message})
            if len(found) >= MAX_PROBLEMS:
                break
    except SchemaError as exc:
        raise SchemaProblem(f"its input schema is not valid JSON Schema: {exc.message}") from None
    except (Unresolvable, RecursionError) as exc:
        raise SchemaProblem(f"its input schema cannot be resolved: {exc}") from None
    return sorted(found, key=lambda p: (p["path"], p["message"]))

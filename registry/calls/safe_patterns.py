"""A site's JSON Schema with its regular expressions run by RE2 (linear time), for
registry.calls.input_check.

jsonschema matches ``pattern``, ``patternProperties`` (and the ``additionalProperties`` beside
them) with Python's backtracking ``re``: a site publishing ``"pattern": "^(a+)+$"`` could
make one agent's 30-character input hold a server thread for a minute (1.1 s at 24
characters, doubling with each one more). ``rewritten`` renames
those keywords to ones these keyword functions check with RE2, wherever a schema sits (not in
the maps of property names, where "pattern" may be a field's name). A pattern RE2 cannot
read (a lookahead, a back-reference) is not checked: the site's own server still is. The
original keywords run in RE2 too (KEYWORDS), for the parts ``rewritten`` cannot see: a
``$ref`` may point into any keyword, a site's own ``x-...`` ones included.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import re2
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

PATTERN, PATTERNS, ADDITIONAL = (
    "x-re2-pattern",
    "x-re2-patternProperties",
    "x-re2-additionalProperties",
)
_NAMED = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
    }
)
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a pattern RE2 refuses is expected, not news for stderr


@functools.lru_cache(maxsize=2048)
def compiled(pattern: str) -> Any | None:
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error:
        return None


def rewritten(schema: Any) -> Any:
    """``schema`` with its regular-expression keywords renamed to the RE2 ones below."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NAMED and isinstance(value, dict):
            out[key] = {name: rewritten(sub) for name, sub in value.items()}
        elif key in _LISTS and isinstance(value, list):
            out[key] = [rewritten(sub) for sub in value]
        elif key in _ONE:
            out[key] = rewritten(value)
        elif key == "pattern":
            out[PATTERN] = value
        elif key == "patternProperties" and isinstance(value, dict):
            out[PATTERNS] = {name: rewritten(sub) for name, sub in value.items()}
        else:
            out[key] = value
    if PATTERNS in out:
        if "additionalProperties" in out:
            out[ADDITIONAL] = out.pop("additionalProperties")
        out.pop("unevaluatedProperties", None)  # would need the patterns' matches: not checked
    return out


def pattern(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not isinstance(instance, str) or not isinstance(value, str):
        return
    regex = compiled(value)
    if regex is not None and regex.search(instance) is None:
        yield ValidationError(f"{instance[:80]!r} does not match {value!r}")


def pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for source, subschema in patterns.items():
        regex = compiled(source)
        for key, value in instance.items():
            if regex is not None and regex.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=source)


def additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """additionalProperties beside patternProperties: what neither names."""
    if not validator.is_type(instance, "object"):
        return
    patterns = schema.get(PATTERNS, schema.get("patternProperties"))
    patterns = patterns if isinstance(patterns, dict) else {}
    regexes = [r for source in patterns if (r := compiled(source))]
    named = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    extra = [k for k in instance if k not in named and not any(r.search(k) for r in regexes)]
    if isinstance(allowed, dict):
        for key in extra:
            yield from validator.descend(instance[key], allowed, path=key)
    elif allowed is False and extra:
        listed = ", ".join(repr(k) for k in sorted(extra)[:10])
        yield ValidationError(f"additional properties are not allowed ({listed})")


_STOCK_ADDITIONAL: Callable[..., Iterator[ValidationError]] = Draft202012Validator.VALIDATORS[
    "additionalProperties"
]


def _stock_additional(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """additionalProperties where ``rewritten`` did not reach (a ``$ref`` into a keyword it
    does not know): RE2 too when patternProperties is beside it, else jsonschema's own."""
    if "patternProperties" in schema:
        return additional_properties(validator, allowed, instance, schema)
    return _STOCK_ADDITIONAL(validator, allowed, instance, schema)


KEYWORDS = {
    PATTERN: pattern,
    PATTERNS: pattern_properties,
    ADDITIONAL: additional_properties,
    # the original names too: RE2 wherever a schema reached by a $ref was not rewritten
    "pattern": pattern,
    "patternProperties": pattern_properties,
    "additionalProperties": _stock_additional,
}

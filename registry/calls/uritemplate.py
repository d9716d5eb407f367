"""RFC 6570 URI Template expansion (all four levels), for registry.calls.prepare.

``expand("https://shop.example/search{?q,page}", {"q": "paper"})`` ->
``https://shop.example/search?q=paper``. A variable with no value (absent or None) is left
out, as the RFC says; ``variables`` lists the names a template uses.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARSPEC = re.compile(r"^([A-Za-z0-9_.%]+)(\*|:([1-9][0-9]{0,3}))?$")
# operator -> (first, separator, named, empty-named suffix, reserved characters allowed)
_OPERATORS: dict[str, tuple[str, str, bool, str, bool]] = {
    "": ("", ",", False, "", False),
    "+": ("", ",", False, "", True),
    "#": ("#", ",", False, "", True),
    ".": (".", ".", False, "", False),
    "/": ("/", "/", False, "", False),
    ";": (";", ";", True, "", False),
    "?": ("?", "&", True, "=", False),
    "&": ("&", "&", True, "=", False),
}
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="


class TemplateError(ValueError):
    """The template is not RFC 6570 (an unknown operator, a malformed variable)."""


def _parse(body: str) -> tuple[str, list[tuple[str, bool, int | None]]]:
    operator = body[:1] if body[:1] in _OPERATORS and body[:1] != "" else ""
    specs = []
    for raw in body[len(operator) :].split(","):
        match = _VARSPEC.match(raw.strip())
        if match is None:
            raise TemplateError(f"{{{body}}} is not an RFC 6570 expression")
        prefix = int(match.group(3)) if match.group(3) else None
        specs.append((match.group(1), match.group(2) == "*", prefix))
    return operator, specs


def variables(template: str) -> list[str]:
    """The variable names ``template`` uses, in order, each once."""
    names: dict[str, None] = {}
    for body in EXPRESSION.findall(template):
        for name, _explode, _prefix in _parse(body)[1]:
            names[name] = None
    return list(names)


def simple_variables(template: str) -> set[str]:
    """Variables of plain or reserved expressions (``{id}``, ``{+path}``): the URL has a hole
    where they go when they have no value."""
    return {
        name
        for body in EXPRESSION.findall(template)
        for name, _e, _p in _parse(body)[1]
        if _parse(body)[0] in ("", "+")
    }


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _encode(value: str, reserved: bool) -> str:
    return quote(value, safe=_UNRESERVED + (_RESERVED if reserved else ""))


def _expand_one(operator: str, spec: tuple[str, bool, int | None], value: Any) -> str | None:
    _first, sep, named, empty, reserved = _OPERATORS[operator]
    name, explode, prefix = spec
    if value is None or value == [] or value == {}:
        return None
    if isinstance(value, dict | list) and not explode:
        pairs = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        parts = [
            item
            for key, v in pairs
            for item in ([] if key is None else [_encode(str(key), reserved)])
            + [_encode(_text(v), reserved)]
        ]
        joined = ",".join(parts)
        return f"{name}={joined}" if named else joined
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else ((name, v) for v in value)
        out = []
        for key, v in items:
            text = _encode(_text(v), reserved)
            if named or isinstance(value, dict):
                out.append(
                    f"{_encode(str(key), reserved)}={text}"
                    if text or not named
                    else f"{key}{empty}"
                )
            else:
                out.append(text)
        return sep.join(out)
    text = _text(value)
    text = _encode(text[:prefix] if prefix else text, reserved)
    if named:
        return f"{name}={text}" if text else f"{name}{empty}"
    return text


def expand(template: str, values: dict[str, Any]) -> str:
    """``template`` with every expression replaced by its variables' values."""

    def replace(match: re.Match[str]) -> str:
        operator, specs = _parse(match.group(1))
        parts = [
            p
            for spec in specs
            if (p := _expand_one(operator, spec, values.get(spec[0]))) is not None
        ]
        return _OPERATORS[operator][0] + _OPERATORS[operator][1].join(parts) if parts else ""

    return EXPRESSION.sub(replace, template)

"""JSON Schemas of a Schema.org action's input and result (a helper of schemaorg.py).

Three sources, merged in this order: the variables of the target's URL template, the
``<property>-input`` annotations (``"required name=q maxlength=100"`` or a
PropertyValueSpecification object), and ``object.additionalProperty`` (PropertyValue items:
``valueRequired``, ``valuePattern``, ``defaultValue``, ``minValue``/``maxValue``, as seed 000
lists them). A read action's ``object`` is what it reads, so its output (seed 000's
``top-stories``: an ItemList of ListItems, an array of objects), beside ``result``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Diagnostic

MAX_FIELDS = 64
_HOLE = re.compile(r"\{([^{}]*)\}")
_TRUE = {"true", "required", "http://schema.org/true", "https://schema.org/true"}
Resolve = Callable[[Any], Any]


def input_schema(
    node: dict[str, Any],
    endpoint: str,
    path: str,
    resolve: Resolve,
    diags: list[Diagnostic],
    read: bool = False,
) -> dict[str, Any]:
    """The input; ``read``: the action reads, and its ``object`` is its output instead."""
    fields: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    for variable, hole in _template_variables(endpoint):
        fields.setdefault(variable, {"type": "string"})
        if hole:  # {id}, {+path}: the URL has a hole without it (prepare refuses the call)
            required.append(variable)
    for key, spec in node.items():
        if isinstance(key, str) and key.endswith("-input") and len(key) > 6:
            specs = spec if isinstance(spec, list) else [spec]
            for item in specs[:MAX_FIELDS]:
                _add(_from_spec(key[:-6], resolve(item)), fields, required)
    obj = None if read else resolve(node.get("object"))
    if isinstance(obj, dict) and "additionalProperty" in obj:
        raw = resolve(obj["additionalProperty"])
        for index, item in enumerate((raw if isinstance(raw, list) else [raw])[:MAX_FIELDS]):
            where = f"{path}.object.additionalProperty[{index}]"
            _add(_from_property(resolve(item), where, diags), fields, required)
    properties = dict(list(fields.items())[:MAX_FIELDS])
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = sorted(set(required) & set(properties))
    return schema


def output_schema(
    node: dict[str, Any], path: str, resolve: Resolve, diags: list[Diagnostic], read: bool = False
) -> dict[str, Any] | None:
    """What the action returns: the ``result``'s type and its ``additionalProperty`` fields;
    else, for a read action, its ``object``'s."""
    key = "result" if isinstance(resolve(node.get("result")), dict) or not read else "object"
    return _thing(resolve(node.get(key)), f"{path}.{key}", resolve, diags)


def _thing(
    thing: Any, path: str, resolve: Resolve, diags: list[Diagnostic], depth: int = 0
) -> dict[str, Any] | None:
    """A Thing as a JSON Schema: an ItemList (``itemListElement``) an array of its items."""
    if not isinstance(thing, dict):
        return None
    schema: dict[str, Any] = {"type": "object"}
    types = thing.get("@type")
    types = types[0] if isinstance(types, list) and types else types
    if isinstance(types, str):
        schema["title"] = clean_text(types.rsplit("/", 1)[-1].removeprefix("schema:"), TITLE_MAX)
    element = resolve(thing.get("itemListElement"))
    element = element[0] if isinstance(element, list) and element else element
    if isinstance(element, dict) and depth < 2:
        where = f"{path}.itemListElement"
        items = _thing(resolve(element), where, resolve, diags, depth + 1)
        return schema | {"type": "array", "items": items or {"type": "object"}}
    raw = resolve(thing.get("additionalProperty"))
    fields: dict[str, Any] = {}
    for index, item in enumerate((raw if isinstance(raw, list) else [raw])[:MAX_FIELDS]):
        if item is not None:
            where = f"{path}.additionalProperty[{index}]"
            _add(_from_property(resolve(item), where, diags), fields, [])
    if fields:
        schema["properties"] = fields
    return schema


def _add(
    found: tuple[str, dict[str, Any], bool] | None, fields: dict[str, Any], required: list[str]
) -> None:
    if found is None:
        return
    name, spec, is_required = found
    fields[name] = {**fields.get(name, {}), **spec}
    if is_required:
        required.append(name)


def _template_variables(endpoint: str) -> list[tuple[str, bool]]:
    """Variable names of RFC 6570 expressions, each with whether the URL has a hole without
    it (a level 1 ``{id}`` or a reserved ``{+path}``): "{?q,page*}" -> [("q", False), ...]."""
    names = []
    for expression in _HOLE.findall(endpoint)[:MAX_FIELDS]:
        hole = expression[:1] not in tuple("#./;?&")
        for part in expression.lstrip("+#./;?&").split(","):
            name = part.split(":")[0].rstrip("*").strip()
            if name:
                names.append((safe_name(name, "param"), hole))
    return names


def _is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in _TRUE)


def _bounded_int(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip()[:9])
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _from_spec(prop: str, spec: Any) -> tuple[str, dict[str, Any], bool] | None:
    """A ``<prop>-input``: the short text form or a PropertyValueSpecification object."""
    if isinstance(spec, str):
        words = spec.split()[:16]
        options = dict(word.split("=", 1) for word in words if "=" in word)
        spec = {
            "valueName": options.get("name"),
            "valueRequired": "required" in words,
            "valueMaxLength": options.get("maxlength"),
            "valueMinLength": options.get("minlength"),
        }
    if not isinstance(spec, dict):
        return None
    field: dict[str, Any] = {"type": "string"}
    for source, target in (("valueMaxLength", "maxLength"), ("valueMinLength", "minLength")):
        if (number := _bounded_int(spec.get(source))) is not None:
            field[target] = number
    if isinstance(spec.get("valuePattern"), str):
        field["pattern"] = spec["valuePattern"][:500]
    if description := clean_text(spec.get("description")):
        field["description"] = description
    name = safe_name(spec.get("valueName") or prop, "query")
    return name, field, _is_true(spec.get("valueRequired"))


def _from_property(
    item: Any, path: str, diags: list[Diagnostic]
) -> tuple[str, dict[str, Any], bool] | None:
    """An ``object.additionalProperty`` PropertyValue: name, description, unit, bounds."""
    label = (item.get("name") or item.get("valueName")) if isinstance(item, dict) else None
    if not isinstance(label, str) or not clean_text(label, TITLE_MAX):
        diags.append(
            Diagnostic(
                code="missing-field",
                path=path,
                message="an additionalProperty needs a name; skipped",
            )
        )
        return None
    bounds = {
        key: number
        for source, key in (("minValue", "minimum"), ("maxValue", "maximum"))
        if (number := _number(item.get(source))) is not None
    }
    field: dict[str, Any] = {"type": "number" if bounds else "string", **bounds}
    name = safe_name(label.lower(), "field")
    if (title := clean_text(label, TITLE_MAX)) != name:
        field["title"] = title
    description = clean_text(item.get("description"))
    if unit := clean_text(item.get("unitText"), 40):
        description = f"{description} (unit: {unit})".strip()
    if description:
        field["description"] = description
    if isinstance(item.get("valuePattern"), str):
        field["pattern"] = item["valuePattern"][:500]
    default = item.get("defaultValue")
    if isinstance(default, str | int | float) and not isinstance(default, bool):
        number = _number(default) if bounds else None
        field["default"] = number if number is not None else clean_text(str(default), TITLE_MAX)
    elif isinstance(default, bool):
        field["default"] = default
    return name, field, _is_true(item.get("valueRequired"))


def _number(value: Any) -> int | float | None:
    """A number, or the text of one ("12", "2.5"); None otherwise."""
    if isinstance(value, str):
        try:
            value = float(value.strip()) if "." in value else int(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None

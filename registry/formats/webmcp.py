"""WebMCP declarative tools: ``<form toolname="..." tooldescription="...">`` -> Schema.org items.

Spec: the WebMCP declarative API proposal (https://github.com/webmachinelearning/webmcp):
a form becomes a tool named ``toolname``; its fields are the tool's parameters, described by
``toolparamdescription`` (else the field's label, ``aria-label`` or placeholder). Each form is
written as a Schema.org ``potentialAction`` of the page (an EntryPoint with the form's action
URL and method, one ``<field>-input`` PropertyValueSpecification per field), so the page
document keeps one shape and the schemaorg normaliser reads it like any other action. GET
forms get a ``{?field,...}`` URL template, which is how the browser would submit them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urljoin

from lxml import etree

MAX_FORMS, MAX_FIELDS = 32, 64
# Paths that select elements: each call returns a list of them (lxml's stub says any XPath result).
_FORMS = cast("Callable[[Any], list[Any]]", etree.XPath("//form[@toolname]"))
_FIELDS = cast(
    "Callable[[Any], list[Any]]",
    etree.XPath(".//input[@name] | .//select[@name] | .//textarea[@name]"),
)
_SKIP_TYPES = {"submit", "button", "reset", "image", "hidden", "file"}


def webmcp_items(url: str, tree: Any) -> list[dict[str, Any]]:
    """One WebPage item holding the page's WebMCP forms as potentialActions ([] if none)."""
    actions = [_action(url, form) for form in _FORMS(tree)[:MAX_FORMS]]
    actions = [action for action in actions if action]
    if not actions:
        return []
    return [
        {
            "@context": "https://schema.org",
            "@type": "WebPage",
            "url": url,
            "potentialAction": actions,
        }
    ]


def _action(url: str, form: Any) -> dict[str, Any] | None:
    name = (form.get("toolname") or "").strip()
    if not name:
        return None
    method = (form.get("method") or "get").strip().upper()
    target = urljoin(url, (form.get("action") or "").strip() or url)
    fields = [spec for field in _FIELDS(form)[:MAX_FIELDS] if (spec := _field(form, field))]
    names = [spec["valueName"] for spec in fields]
    if method == "GET" and names and "{" not in target:
        target = f"{target.split('?')[0]}{{?{','.join(names)}}}"
    entry = {
        "@type": "EntryPoint",
        "urlTemplate": target,
        "httpMethod": "POST" if method == "POST" else "GET",
    }
    if method == "POST":
        entry["encodingType"] = form.get("enctype") or "application/x-www-form-urlencoded"
    action: dict[str, Any] = {
        "@type": "Action",
        "name": name,
        "description": form.get("tooldescription") or "",
        "target": entry,
    }
    for spec in fields:
        action[f"{spec['valueName']}-input"] = spec
    return action


def _field(form: Any, field: Any) -> dict[str, Any] | None:
    if (field.get("type") or "").lower() in _SKIP_TYPES:
        return None
    name = field.get("name", "").strip()
    if not name or "{" in name or "}" in name or "," in name:
        return None
    spec: dict[str, Any] = {
        "@type": "PropertyValueSpecification",
        "valueName": name,
        "valueRequired": field.get("required") is not None,
    }
    for attribute, key in (
        ("maxlength", "valueMaxLength"),
        ("minlength", "valueMinLength"),
        ("pattern", "valuePattern"),
    ):
        if field.get(attribute):
            spec[key] = field.get(attribute)
    description = (
        field.get("toolparamdescription")
        or field.get("aria-label")
        or _label(form, field)
        or field.get("placeholder")
    )
    if description:
        spec["description"] = description
    return spec


def _label(form: Any, field: Any) -> str | None:
    field_id = field.get("id")
    if not field_id:
        return None
    labels = [label for label in form.iter("label") if label.get("for") == field_id]
    return " ".join(labels[0].itertext()).strip() or None if labels else None

"""Rendering a page: the one Jinja2 environment (autoescape on, unknown names an error) and
the headers every page carries (a strict Content-Security-Policy: this server's stylesheet,
nothing else; no script at all, no frames, forms only to this server)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from api.web import shape

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
# What each effect means, in words: the colour of its badge only repeats this.
EFFECTS = {
    "read": "reads only: changes nothing",
    "write": "changes data on the site",
    "send": "sends a message to someone: needs your approval",
    "spend": "spends money: needs your approval",
    "delete": "deletes data: needs your approval",
}

_env = Environment(
    loader=FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.globals.update(
    effects=EFFECTS,
    fields=shape.fields,
    field_names=shape.field_names,
    request_text=shape.request_text,
)
_env.filters["cost"] = shape.cost_text


def when(value: Any) -> Markup | str:
    """A stored time as people read it ("3 Dec 2026, 08:04 UTC") in a <time> whose datetime
    attribute and title keep the exact ISO string; anything not a time, as it is."""
    text = str(value or "")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    moment = moment.replace(tzinfo=moment.tzinfo or UTC).astimezone(UTC)
    shown = f"{moment.day} {moment:%b %Y, %H:%M} UTC"
    return Markup('<time datetime="{0}" title="{0}">{1}</time>').format(escape(text), shown)


_env.filters["when"] = when


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """``template`` rendered with ``context`` (and ``request``), with the page headers."""
    context.setdefault("active", "")
    html = _env.get_template(template).render(request=request, **context)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def not_found(request: Request, what: str) -> HTMLResponse:
    return page(
        request,
        "error.html",
        404,
        title="Not found",
        message=f"{what} is not known "
        "here. It may have been removed by a later crawl, or the address is mistyped.",
    )

"""Plan a call, never make it: an action (registry.store.lookup.action_detail) and an agent's input
-> the exact HTTP request to send, ``{method, url, headers, body, needs_approval,
approval_reasons, cost, scope, auth}``. Nothing is sent anywhere.

The input is checked against the action's input schema first (registry.calls.input_check: every
problem, each with its JSON path), a null in an optional field taken as left out, as strict
tool definitions send it (registry.calls.nulls). Then each field goes where the action says:
- a field marked ``x-in`` (OpenAPI parameters: path, query, header, cookie, formData) goes
  there; the one marked ``x-in: body`` is the whole request body;
- otherwise a field named in the endpoint's RFC 6570 template fills it, and the rest go to the
  query string for GET, HEAD, DELETE and OPTIONS, else to the body.
The body is JSON, or a form (``application/x-www-form-urlencoded``) when the action says so
(``content_type``, or ``x-content-type`` in its input schema or its body field); ``body`` is
the text to send.
An action its format marks ``x-jsonrpc`` (an A2A skill, an MCP tool) is a JSON-RPC 2.0 POST
instead (registry.calls.protocols); one marked as no single request (an MCP server itself) is
refused (``not-callable``), saying how to reach it.
``needs_approval``: spend, send and delete need the person's yes first, and so does a call
to an endpoint that is not https or is on another domain not verified to be the site's
(seed 003's guard); ``approval_reasons`` says why. A cost whose
``field`` names an input field is answered with that field's amount.
"""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any
from urllib.parse import urlencode, urlsplit

from registry.calls.input_check import SchemaProblem, TooComplex, input_problems, size_problems
from registry.calls.nulls import nulls_left_out
from registry.calls.protocols import NotPlannable, rpc_of, rpc_request
from registry.calls.uritemplate import TemplateError, expand, simple_variables, variables
from registry.model.effects import approval_reasons
from registry.model.urls import absolute

QUERY_METHODS = frozenset({"GET", "HEAD", "DELETE", "OPTIONS"})
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
PLACES = frozenset({"path", "query", "header", "cookie", "formData", "body"})


class PrepareError(Exception):
    """The call cannot be planned. ``problems``: every one, ``{"path", "message"}``;
    ``code``: ``invalid-input`` (the agent's to fix), ``not-callable`` (the action's: no
    endpoint, or an input schema that cannot be used) or ``too-complex`` (checking this input
    against the schema would take more than registry.model.schema_bounds allows)."""

    def __init__(self, problems: list[dict[str, str]], code: str = "invalid-input") -> None:
        self.problems, self.code = problems, code
        first = problems[0] if problems else {"path": "$", "message": "cannot prepare"}
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first['path']}: {first['message']}{more}")


def _refuse(message: str) -> PrepareError:
    return PrepareError([{"path": "$", "message": message}], code="not-callable")


def prepare_call(action: dict[str, Any], input: dict[str, Any]) -> dict[str, Any]:
    """The request that calls ``action`` with ``input``; PrepareError listing every problem."""
    if problems := size_problems(input):
        raise PrepareError(problems)
    endpoint = action.get("endpoint")
    if not endpoint:
        raise _refuse("this action publishes no endpoint: it cannot be called over HTTP")
    rpc = rpc_of(action)
    if rpc is not None:
        try:  # an MCP server (not one of its tools) is no single request
            rpc_request(rpc, action, {})
        except NotPlannable as exc:
            raise _refuse(str(exc)) from None
    schema = action.get("input_schema") or {}
    input = nulls_left_out(schema, input)  # an optional field's null: strict mode's "left out"
    try:
        problems = input_problems(schema, input) if isinstance(schema, dict) else []
    except SchemaProblem as exc:
        raise _refuse(f"this action cannot be checked: {exc}") from None
    except TooComplex as exc:
        raise PrepareError(
            [{"path": "$", "message": f"{exc}: send a smaller input"}], code="too-complex"
        ) from None
    cost, cost_problems = _cost(action.get("cost"), input)
    if problems or cost_problems:
        raise PrepareError(sorted(problems + cost_problems, key=lambda p: p["path"]))
    method = action.get("method") or ("GET" if action.get("effect") == "read" else "POST")
    method = method.upper()
    body: str | None
    if rpc is not None:  # a JSON-RPC POST to the agent's or server's URL
        method, url = "POST", _url(endpoint, {}, {})
        headers, body = rpc_request(rpc, action, input)
    else:
        url, headers, body = _request(
            endpoint, method, _places(schema), input, _content_type(action)
        )
    effect = action.get("effect", "write")
    origin, verified = action.get("origin", "same"), action.get("verified", True)
    reasons = approval_reasons(effect, url, origin, verified)
    return {
        "method": method,
        "url": url,
        "headers": headers,
        "body": body,
        "needs_approval": bool(reasons),
        "approval_reasons": reasons,
        "effect": effect,
        "cost": cost,
        "scope": action.get("scope"),
        "auth": action.get("auth", "unknown"),
    }


def _content_type(action: dict[str, Any]) -> str | None:
    """The body's media type if the action says: ``content_type``, else ``x-content-type`` of
    its input schema (a Schema.org EntryPoint's encodingType) or of its ``body`` field (an
    OpenAPI request body that is not JSON)."""
    schema = given if isinstance(given := action.get("input_schema"), dict) else {}
    props = given if isinstance(given := schema.get("properties"), dict) else {}
    body = given if isinstance(given := props.get("body"), dict) else {}
    declared = (
        action.get("content_type") or schema.get("x-content-type") or body.get("x-content-type")
    )
    return declared if isinstance(declared, str) else None


def _places(schema: dict[str, Any]) -> dict[str, str]:
    """Field -> where it goes, for fields the schema places itself (``x-in``, as OpenAPI
    operations do: ``body`` is the whole request body)."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {
        name: spec["x-in"]
        for name, spec in props.items()
        if isinstance(spec, dict) and spec.get("x-in") in PLACES
    }


def _request(
    endpoint: str,
    method: str,
    places: dict[str, str],
    values: dict[str, Any],
    content_type: str | None,
) -> tuple[str, dict[str, str], str | None]:
    try:
        in_url = set(variables(endpoint))
        holes = simple_variables(endpoint)
    except TemplateError as exc:
        raise _refuse(f"its endpoint is not a URL template: {exc}") from None
    missing = sorted(name for name in holes if values.get(name) is None)
    if missing:
        raise PrepareError(
            [{"path": f"$.{name}", "message": "the URL needs a value here"} for name in missing]
        )
    headers: dict[str, str] = {}
    query: dict[str, Any] = {}
    form: dict[str, Any] = {}
    body: Any = None
    for name, value in values.items():
        where = places.get(name)
        if where == "path" or name in in_url:
            continue  # in the URL already
        if where == "header":
            headers[name] = _header_text(name, value)
        elif where == "cookie":
            cookie = f"{name}={_header_text(name, value, cookie=True)}"
            headers["Cookie"] = "; ".join(filter(None, [headers.get("Cookie"), cookie]))
        elif where == "query" or (where is None and method in QUERY_METHODS):
            query[name] = value
        elif where == "body":
            body = value
        else:
            form[name] = value
    url = _url(endpoint, values, query)
    if body is None and form:
        body = form
    if body is None:
        return url, headers, None
    if content_type == FORM or "formData" in places.values():
        headers["Content-Type"] = FORM
        return url, headers, urlencode(_flat(body), doseq=True)
    headers["Content-Type"] = content_type if content_type and "json" in content_type else JSON
    return url, headers, json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _url(endpoint: str, values: dict[str, Any], query: dict[str, Any]) -> str:
    url = expand(endpoint, values)
    if query:
        url += ("&" if "?" in url else "?") + urlencode(_flat(query), doseq=True)
    checked = absolute(url, url)
    template_host = urlsplit(endpoint.split("{", 1)[0]).netloc
    if checked is None or (template_host and urlsplit(checked).netloc != template_host):
        raise PrepareError(
            [
                {
                    "path": "$",
                    "message": "the filled URL is not a valid http(s) URL on the action's host",
                }
            ]
        )
    return checked


def _header_text(name: str, value: Any, cookie: bool = False) -> str:
    """A header or cookie value: a line break in it would add headers of its own, a ';' in
    a cookie cookies of its own."""
    text = _scalar(value)
    if (
        any(ord(char) < 0x20 or char == "\x7f" for char in text)
        or not name.isascii()
        or (cookie and ";" in text)
    ):
        raise PrepareError(
            [
                {
                    "path": f"$.{name}",
                    "message": "a header value cannot hold "
                    "control characters (nor a "
                    "cookie's a ';')",
                }
            ]
        )
    return text


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "" if value is None else str(value)


def _flat(values: Any) -> dict[str, Any]:
    """Query or form fields as text: a list repeats its key; an object is sent as JSON."""
    if not isinstance(values, dict):
        return {"value": _scalar(values)}
    return {
        name: [_scalar(v) for v in value] if isinstance(value, list) else _scalar(value)
        for name, value in values.items()
        if value is not None
    }


def _cost(cost: Any, values: dict[str, Any]) -> tuple[Any, list[dict[str, str]]]:
    """The action's cost; a ``field`` one resolved to the amount the input gives it."""
    if not isinstance(cost, dict) or not isinstance(cost.get("field"), str):
        return cost, []
    field: str = cost["field"]
    value: Any = values  # walks down to the field: a dict, then whatever the field holds
    for part in field.removeprefix("$.").split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value < 0
        or not math.isfinite(value)
    ):
        return cost, [
            {
                "path": f"$.{field.removeprefix('$.')}",
                "message": "the cost is this field's amount: give a number >= 0",
            }
        ]
    return cost | {"amount": value}, []

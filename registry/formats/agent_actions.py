"""agent-actions/0.1, the site action manifest, served at ``/.well-known/agent-actions.json``.

The spec is seed 002 (``../shared/seeds/002_*.txt``, "Site action manifest", draft 0.1): its
example goes through as printed. What this reader takes, every field but an action's ``name``
and a flow's ``name`` and ``steps`` optional::

    {"version": "agent-actions/0.1",               # or "schema" / "$schema"
     "site": "shop.example",                       # a host (the origin serving it), a URL,
                                                   #   or {"name", "url", "description"}
     "auth": {"type": "agent-grant"},              # every action's, unless one says otherwise
     "endpoints": {"receipts": "/agent/receipts"}, # added by the middleware: where receipts,
                                                   #   refunds, revocations and negotiation live
     "actions": [{
         "name": "add_to_cart",                    # [A-Za-z0-9_-]{1,64}
         "title": "...", "description": "...",
         "method": "POST",                         # GET HEAD POST PUT PATCH DELETE OPTIONS
         "path": "/api/cart",                      # against the site, else the document URL;
         "endpoint": "https://api.shop.example/x", #   or absolute. RFC 6570 {vars} are kept
         "effect": "write",                        # read write send spend delete; else inferred
         "scope": "cart:write",
         "auth": "none",                           # none api_key oauth2 grant (agent-grant)
                                                   #   unknown, or {"type": ...}
         "cost": {"amount": 25, "currency": "USD"},# or {"field": "price", "currency": ...}:
                                                   #   the amount is that input field's value
         "input": {JSON Schema},                   # or "input_schema" / "parameters"
         "output": {JSON Schema}}],                # or "output_schema"
     "flows": [{
         "name": "buy_product", "title": "...", "description": "...", "input": {JSON Schema},
         "steps": [{"action": "search_products", "with": {"query": "$input.query"}},
                   {"action": "add_to_cart",       # "with", or "bind" / "bindings"
                    "with": {"product_id": "$steps.0.items.0.id"}}]}]}

A binding names the flow's input (``$input.<field>``) or a path into the result of an
earlier step (``$steps.<N>.<path>``, N smaller than the step's own index). A flow is kept only
if every binding resolves; a step naming an action of another document is kept with a
warning. Its effect is the strongest of its steps' effects (delete > spend > send > write >
read), its input (when it declares none) what its ``$input`` references feed, and its auth,
scope and cost its steps' (registry.model.flow_terms). The seed's error shape
(``{"error": {"code", "message", "field", "retry_after"}}``) is what a call answers, not part
of the manifest: nothing here reads it.
"""

from __future__ import annotations

import re
from typing import Any, cast
from urllib.parse import urlsplit

from registry.formats._agent_actions_flows import INPUT_KEYS, read_flows
from registry.formats._common import (
    Diagnostics,
    described,
    diag,
    http_method,
    json_schema,
    machine_name,
    read_each,
    site_text,
    text,
    title_from,
)
from registry.formats._references import References
from registry.model.effects import infer_effect, strongest
from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import EFFECTS, Action, Auth, Effect, Manifest
from registry.model.urls import absolute, site_of

NAME = "agent-actions"
PATHS = ("/.well-known/agent-actions.json",)
MAX_ACTIONS = 256  # stop work early; the facade caps again
MAX_ENDPOINTS = 32
OUTPUT_KEYS = ("output", "output_schema")
_AUTH: dict[str, Auth] = {
    "none": "none",
    "api_key": "api_key",
    "apikey": "api_key",
    "api-key": "api_key",
    "oauth2": "oauth2",
    "oauth": "oauth2",
    "grant": "grant",
    "agent-grant": "grant",
    "agent_grant": "grant",
    "unknown": "unknown",
}
_CURRENCY = re.compile(r"[A-Z]{3}")
_V01 = re.compile(r"agent-actions/0\.1(?![0-9])", re.IGNORECASE)
_FIELD = re.compile(r"[A-Za-z0-9_-]{1,64}(?:\.[A-Za-z0-9_-]{1,64}){0,7}")


def matches(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    for key in ("schema", "$schema", "version"):
        if isinstance(data.get(key), str) and "agent-actions" in data[key].lower():
            return True
    actions = data.get("actions")
    return isinstance(actions, list) and any(
        isinstance(item, dict) and {"method", "path", "effect"} <= item.keys()
        for item in actions[:MAX_ACTIONS]
    )


def site_url(data: dict[str, Any]) -> Any:
    info = data.get("site")
    return info.get("url") if isinstance(info, dict) else info


def to_manifest(
    data: dict[str, Any], url: str, site: str, refs: References | None = None
) -> Manifest:
    diags: Diagnostics = []
    info = data.get("site")
    if isinstance(info, str):  # the site alone: a host ("shop.example") or its URL
        info = {"url": info}
    if not isinstance(info, dict):
        if info is not None:
            diag(diags, "invalid-type", "$.site", "site must be an object or a host name")
        info = {}
    base = _base(info.get("url"), url)
    _version(data, diags)
    auth = _auth(data.get("auth"), "$.auth", diags)
    actions = _actions(data.get("actions"), base, auth, diags)
    by_name = {action.name: action for action in actions}
    flows = read_flows(data.get("flows"), by_name, diags, auth)
    description, about = site_text(info.get("description"), "$.site.description", diags)
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        actions=actions,
        flows=flows,
        endpoints=_endpoints(data.get("endpoints"), base, diags),
        diagnostics=diags,
        site_name=clean_text(info.get("name"), TITLE_MAX) or None,
        site_description=description,
        site_about=about,
    )


def _base(named: Any, url: str) -> str:
    """What paths resolve against: the site's URL, else the document's. A bare host
    ("shop.example") is the origin that served the document when that is its host (a site is
    its origin: scheme and port included), else that host over https."""
    if isinstance(named, str) and named.strip() and "://" not in named:
        host = named.strip().rstrip("/")
        served = urlsplit(url)
        if site_of(f"https://{host}/") == site_of(url):
            return f"{served.scheme}://{served.netloc}/"
        named = f"https://{host}/"
    return absolute(named, url) or url


def _version(data: dict[str, Any], diags: Diagnostics) -> None:
    """A version other than 0.1 is read as 0.1, and said."""
    raw = next((data[k] for k in ("version", "schema", "$schema") if k in data), None)
    if isinstance(raw, str) and "agent-actions" in raw.lower() and not _V01.search(raw):
        diag(
            diags, "unknown-version", "$.version", f"{raw[:40]!r} read as agent-actions/0.1", "info"
        )


def _endpoints(value: Any, base: str, diags: Diagnostics) -> dict[str, str]:
    """``{"receipts": "/agent/receipts", ...}`` (a value may be ``{"url"}`` or ``{"path"}``):
    each name once, each URL absolute; what is not one is said and left out."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        diag(diags, "invalid-type", "$.endpoints", "endpoints must map names to URLs or paths")
        return {}
    found: dict[str, str] = {}
    if len(value) > MAX_ENDPOINTS:  # docs/RELIABILITY.md 24: wide JSON is capped, and said
        diag(diags, "truncated", "$.endpoints", f"only the first {MAX_ENDPOINTS} are read", "info")
    for name, raw in list(value.items())[:MAX_ENDPOINTS]:
        raw = raw.get("url", raw.get("path")) if isinstance(raw, dict) else raw
        url = absolute(raw, base) if isinstance(raw, str) else None
        if url is None or len(url) > 2048:
            diag(diags, "invalid-endpoint", f"$.endpoints.{safe_name(name)}", "not a URL or path")
            continue
        found[safe_name(name)] = url
    return found


def _actions(items: Any, base: str, auth: Auth, diags: Diagnostics) -> list[Action]:
    # "error" severity: a manifest with nothing usable must not replace the last good one.
    if items is None:
        diag(diags, "missing-field", "$.actions", "no actions list", "error")
    actions: list[Action] = read_each(
        items,
        "$.actions",
        MAX_ACTIONS,
        diags,
        lambda item, path: _action(item, base, auth, path, diags),
        severity="error",
    )
    if isinstance(items, list) and items and not actions:
        diag(diags, "no-valid-actions", "$.actions", "no action could be read", "error")
    return actions


def _action(item: Any, base: str, auth: Auth, path: str, diags: Diagnostics) -> Action | None:
    name = machine_name(item, path, diags)
    if name is None:
        return None
    method = http_method(item.get("method"), f"{path}.method", diags)
    description, about = described(item.get("description"), f"{path}.description", diags)
    return Action(
        name=name,
        title=text(item.get("title"), TITLE_MAX, f"{path}.title", diags) or title_from(name),
        description=description,
        about=about,
        method=method,
        endpoint=_endpoint(item, base, path, diags),
        effect=_effect(item.get("effect"), method, name, path, diags),
        input_schema=json_schema(item, INPUT_KEYS, path, diags) or {"type": "object"},
        output_schema=json_schema(item, OUTPUT_KEYS, path, diags),
        scope=clean_text(item.get("scope"), TITLE_MAX) or None,
        auth=_auth(item.get("auth"), f"{path}.auth", diags)
        if item.get("auth") is not None
        else auth,
        cost=_cost(item.get("cost"), path, diags),
    )


def _endpoint(item: dict[str, Any], base: str, path: str, diags: Diagnostics) -> str | None:
    key = "endpoint" if "endpoint" in item else "path"
    if item.get(key) is None:
        return None
    endpoint = absolute(item[key], base)
    if endpoint is None:
        diag(diags, "invalid-endpoint", f"{path}.{key}", "not an http(s) URL or path; ignored")
    return endpoint


def _effect(value: Any, method: str | None, name: str, path: str, diags: Diagnostics) -> Effect:
    """The declared effect; but a POST (PUT, DELETE...) declared ``read`` is stored as the
    stronger of that and what its method and name say (``send_invoice`` is send, ``save`` a
    write, ``find_recipes`` stays read): an agent must not call it unasked on the site's word
    alone (issue 21). The diagnostic stays."""
    if value in EFFECTS:
        if value == "read" and method not in (None, "GET", "HEAD"):
            diag(
                diags,
                "effect-mismatch",
                f"{path}.effect",
                f"declared read, but the method is {method}",
            )
            return strongest([cast(Effect, value), infer_effect(None, method, name)])
        return cast(Effect, value)
    if value is not None:
        diag(diags, "invalid-type", f"{path}.effect", f"unknown effect; one of {EFFECTS}")
    return infer_effect(None, method, name)


def _auth(value: Any, path: str, diags: Diagnostics) -> Auth:
    raw = value.get("type") if isinstance(value, dict) else value
    if raw is None:
        return "unknown"
    auth = _AUTH.get(raw.strip().lower()) if isinstance(raw, str) else None
    if auth is None:
        diag(diags, "invalid-type", path, "unknown auth; read as unknown")
        return "unknown"
    return auth


def _cost(value: Any, path: str, diags: Diagnostics) -> dict[str, Any] | None:
    if value is None:
        return None
    amount = value.get("amount") if isinstance(value, dict) else None
    field = value.get("field") if isinstance(value, dict) else None
    currency = value.get("currency") if isinstance(value, dict) else None
    if isinstance(currency, str) and _CURRENCY.fullmatch(currency.upper()):
        if isinstance(amount, int | float) and not isinstance(amount, bool) and amount >= 0:
            return {"amount": amount, "currency": currency.upper()}
        if amount is None and isinstance(field, str) and _FIELD.fullmatch(field):
            return {"field": field, "currency": currency.upper()}
    diag(
        diags,
        "invalid-type",
        f"{path}.cost",
        "cost needs a currency code and an amount >= 0, or the input field that holds it",
    )
    return None

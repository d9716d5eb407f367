"""The other ``/.well-known/agents.json`` dialects found in the wild (no shared spec).

Read where they carry actions, diagnosed where they do not:

- plain lists of operations under ``actions``, ``data`` (LeonTing1010 agents.json 1.0),
  ``endpoints`` (a list, or a map of name -> URL) or ``api.endpoints`` (with ``api.base_url``):
  items with ``name``/``id``, ``method``, ``endpoint``/``url``/``path``, ``input_schema``...;
- ``agentlookup-v1`` (``{"schema": "agentlookup-v1", "agents": [...]}``): each agent listed;
- the flows/steps variant (``source: {type: openapi, url}``, ``flows[].steps[].operationId``
  with ``$user.x`` / ``$steps.<operationId>.outputs.<name>`` bindings);
- descriptive objects or lists with none of these: ``no-actions``.

OpenAPI documents they mention (``openapi_spec``, ``api.openapi``, ``source.url``...) are
listed as references. Matched after every format that announces itself, before schemaorg.
"""

from __future__ import annotations

from typing import Any

from registry.formats import _adhoc_flows
from registry.formats._common import (
    Diagnostics,
    as_dict,
    as_list,
    described,
    diag,
    http_method,
    json_schema,
    named_manifest,
    title_from,
)
from registry.formats._references import References
from registry.model.effects import infer_effect
from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import EFFECTS, Action, Auth, Manifest
from registry.model.urls import absolute

NAME = "agents-json"
PATHS = ("/.well-known/agents.json",)
MAX_ITEMS = 256
_LISTS = ("actions", "data", "endpoints", "agents", "tools")
_MARKERS = {
    *_LISTS,
    "flows",
    "capabilities",
    "interfaces",
    "api",
    "schema_version",
    "schemaVersion",
    "openapi_spec",
}
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object"}
_AUTH: dict[str, Auth] = {
    "none": "none",
    "public": "none",
    "api_key": "api_key",
    "apikey": "api_key",
    "bearer": "api_key",
    "token": "api_key",
    "oauth": "oauth2",
    "oauth2": "oauth2",
}


def matches(data: Any) -> bool:
    if isinstance(data, list):  # a bare list of agents or services, not JSON-LD
        items = [item for item in data[:16] if isinstance(item, dict)]
        return bool(items) and all(
            "name" in i and not {"@type", "@context"} & i.keys() for i in items
        )
    return (
        isinstance(data, dict)
        and not {"@context", "@type", "@graph"} & data.keys()
        and isinstance(data.get("name", data.get("schema")), str)
        and bool(_MARKERS & data.keys())
    )


def site_url(data: Any) -> Any:
    return as_dict(data).get("url") or as_dict(data).get("homepage")


def to_manifest(data: Any, url: str, site: str, refs: References | None = None) -> Manifest:
    refs = refs or References(url)
    diags: Diagnostics = []
    if isinstance(data, list):
        data = {"agents": data}
    base = (
        absolute(as_dict(data.get("api")).get("base_url"), url)
        or absolute(data.get("url") or data.get("homepage"), url)
        or url
    )
    actions = _actions(data, base, diags)
    _references(data, refs)
    flows, extra = _adhoc_flows.flows(data, url, refs, diags)
    actions += [a for a in extra if a.name not in {b.name for b in actions}]
    if not actions:
        diag(
            diags,
            "no-actions",
            "$",
            "this agents.json lists no actions an agent can call",
            "error",
            "list operations under actions[] (name, method, path, description), or "
            "publish /.well-known/agent-actions.json",
        )
    return named_manifest(
        data, diags, site=site, url=url, format=NAME, actions=actions, flows=flows
    )


def _items(data: dict[str, Any]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    api = as_dict(data.get("api"))
    sources = [(key, data.get(key)) for key in _LISTS] + [("api.endpoints", api.get("endpoints"))]
    for key, value in sources:
        if isinstance(value, dict):  # {"search": "https://..."} or {"search": {...}}
            value = [
                {"name": k, **(v if isinstance(v, dict) else {"url": v})}
                for k, v in list(value.items())[:MAX_ITEMS]
            ]
        found += [(f"$.{key}[{i}]", item) for i, item in enumerate(as_list(value)[:MAX_ITEMS])]
    return found[:MAX_ITEMS]


def _actions(data: dict[str, Any], base: str, diags: Diagnostics) -> list[Action]:
    actions: list[Action] = []
    for path, item in _items(data):
        action = _action(as_dict(item), base, path, diags)
        if action and action.name not in {a.name for a in actions}:
            actions.append(action)
    return actions


def _action(item: dict[str, Any], base: str, path: str, diags: Diagnostics) -> Action | None:
    target = next(
        (item[k] for k in ("endpoint", "url", "path") if isinstance(item.get(k), str)), None
    )
    raw = item.get("id") if isinstance(item.get("id"), str) else item.get("name")
    if not isinstance(raw, str) or not raw.strip():
        raw = f"{item.get('method', '')} {target or ''}".strip()
    if not raw or target is None:
        diag(
            diags,
            "action-skipped",
            path,
            "needs a name and an endpoint, url or path",
            hint="give each action name, method and path",
        )
        return None
    name, method = safe_name(raw), http_method(item.get("method"), f"{path}.method", diags)
    effect = item["effect"] if item.get("effect") in EFFECTS else infer_effect(None, method, name)
    label = clean_text(item.get("title") or item.get("name"), TITLE_MAX)
    description, about = described(item.get("description"), f"{path}.description", diags)
    return Action(
        name=name,
        title=label if " " in label else title_from(label or name),
        description=description,
        about=about,
        method=method,
        endpoint=absolute(target, base),
        effect=effect,
        auth=_AUTH.get(str(item.get("auth", "")).lower(), "unknown"),
        input_schema=json_schema(item, ("input_schema", "inputSchema", "parameters"), path, diags)
        or {"type": "object"},
        output_schema=json_schema(item, ("output_schema", "outputSchema"), path, diags)
        or _fields(item.get("fields")),
    )


def _fields(fields: Any) -> dict[str, Any] | None:
    """LeonTing's ``fields: {"stars": "number — star count"}``, the shape of what the endpoint
    answers, as a JSON Schema (its leading word is the type when it names one)."""
    properties = {}
    for key, value in list(as_dict(fields).items())[:64]:
        if isinstance(value, str):
            kind, _, rest = value.partition(" ")
            known = kind.lower() in _JSON_TYPES
            properties[safe_name(key, "field")] = {
                "type": kind.lower() if known else "string",
                "description": clean_text(rest.lstrip(" -—–:") if known else value),
            }
    return {"type": "object", "properties": properties} if properties else None


def _references(data: dict[str, Any], refs: References) -> None:
    """OpenAPI documents named at the top level or one level down."""
    for key, value in list(data.items())[:64]:
        nested = list(value.items())[:32] if isinstance(value, dict) else []
        for name, item in [(key, value), *nested]:
            if "openapi" in str(name).lower() and isinstance(item, str):
                refs.add(item)

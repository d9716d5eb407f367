"""OpenAPI 3.0/3.1 and Swagger 2 operations -> Actions (shared by openapi, wildcard, ai_plugin
and api_catalog, which all end at an OpenAPI document).

One action per (path, method). Its name is the operationId (else method + path), its input
schema an object whose properties are the parameters (``x-in`` says where each goes) plus
``body`` for the request body (``x-in: body``, and ``x-content-type`` when it is not JSON); its
output schema the first 2xx JSON response.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from registry.formats._common import (
    Diagnostics,
    as_dict,
    as_list,
    beyond,
    described,
    diag,
    index_words,
    title_from,
)
from registry.formats._jsonref import RefResolver
from registry.model.effects import infer_effect
from registry.model.sanitize import TITLE_MAX, clean_schema, clean_text, safe_name
from registry.model.schemas import Action, Auth
from registry.model.urls import absolute

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
MAX_OPERATIONS, MAX_PARAMS = 256, 64
_SKIP_HEADERS = {"authorization", "content-type", "accept", "user-agent"}
AUTH_TYPES: dict[str, Auth] = {
    "apikey": "api_key",
    "http": "api_key",
    "basic": "api_key",
    "oauth2": "oauth2",
    "openidconnect": "oauth2",
}
_VARIABLE = re.compile(r"\{([^{}]{1,64})\}")


def is_openapi(data: Any) -> TypeGuard[dict[str, Any]]:
    if not isinstance(data, dict):
        return False
    version = data.get("openapi", data.get("swagger"))
    return isinstance(version, str | int | float) and str(version)[:1] in ("2", "3")


def base_url(spec: dict[str, Any], spec_url: str) -> str:
    """Where operations live: servers[0] (variables at their defaults), or host + basePath."""
    if "swagger" in spec:
        schemes = given if isinstance(given := spec.get("schemes"), list) else []
        scheme = "https" if "https" in schemes or not schemes else str(schemes[0])
        base = spec.get("basePath") if isinstance(spec.get("basePath"), str) else "/"
        host = spec.get("host")
        joined = f"{scheme}://{host}{base}" if isinstance(host, str) and host else base
        return absolute(joined, spec_url) or spec_url
    servers = spec.get("servers")
    server = servers[0] if isinstance(servers, list) and servers else None
    if not isinstance(server, dict) or not isinstance(server.get("url"), str):
        return absolute("/", spec_url) or spec_url
    variables = given if isinstance(given := server.get("variables"), dict) else {}

    def default(match: re.Match[str]) -> str:
        var = variables.get(match.group(1))
        value = var.get("default") if isinstance(var, dict) else None
        return str(value) if isinstance(value, str | int) else match.group(0)

    return absolute(_VARIABLE.sub(default, server["url"]), spec_url) or spec_url


def operations(
    spec: dict[str, Any], spec_url: str, diags: Diagnostics, wanted: set[str] | None = None
) -> list[tuple[str | None, Action]]:
    """(operationId, action) for every operation, or only those whose operationId is wanted."""
    paths = spec.get("paths")
    if not isinstance(paths, dict):
        diag(diags, "missing-field", "$.paths", "no paths object; no operations", "error")
        return []
    resolver, base = RefResolver(spec, diags), base_url(spec, spec_url).rstrip("/")
    found: list[tuple[str | None, Action]] = []
    for route, item in list(paths.items())[:1000]:
        item = resolver.deref(item)
        if not isinstance(item, dict) or not isinstance(route, str):
            diag(
                diags,
                "action-skipped",
                f"$.paths['{str(route)[:100]}']",
                "a path item must be an object",
                hint="map each path to its operations",
            )
            continue
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else None
            if wanted is not None and op_id not in wanted:
                continue
            if len(found) == MAX_OPERATIONS:
                diag(diags, "too-many-actions", "$.paths", f"only {MAX_OPERATIONS} operations read")
                return found
            where = f"$.paths['{route[:100]}'].{method}"
            context = _Context(spec, resolver, where, diags)
            resolver.start_operation()
            found.append((op_id, _action(op, item, method, route, base, context)))
    return found


class _Context:
    def __init__(
        self, spec: dict[str, Any], resolver: RefResolver, path: str, diags: Diagnostics
    ) -> None:
        self.spec, self.resolver, self.path, self.diags = spec, resolver, path, diags

    def schema(self, value: Any) -> dict[str, Any]:
        """``value`` with its $refs inlined; {} unless that is an object (a $ref may not be)."""
        inlined = self.resolver.inline(value, self.path) if isinstance(value, dict) else None
        return inlined if isinstance(inlined, dict) else {}


def _action(
    op: dict[str, Any], item: dict[str, Any], method: str, route: str, base: str, ctx: _Context
) -> Action:
    op_id = op.get("operationId")
    name = safe_name(op_id if isinstance(op_id, str) else f"{method} {route}")
    summary = clean_text(op.get("summary"), TITLE_MAX)
    description, about = described(
        op.get("description"),
        f"{ctx.path}.description",
        ctx.diags,
        (beyond(op.get("summary"), TITLE_MAX),),
    )
    auth, scope = _auth(ctx.spec, op)
    return Action(
        name=name,
        title=summary or title_from(name),
        description=description or summary,
        about=about,
        method=method.upper(),
        endpoint=absolute(base + route, base),
        effect=infer_effect(None, method, name),
        auth=auth,
        scope=scope,
        input_schema=_input(op, item, ctx),
        output_schema=_output(op, ctx),
    )


def _input(op: dict[str, Any], item: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    params = [*_list(item.get("parameters")), *_list(op.get("parameters"))][:MAX_PARAMS]
    for raw in params:
        param = ctx.resolver.deref(raw)
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            continue
        where = param.get("in")
        if where == "header" and param["name"].lower() in _SKIP_HEADERS:
            continue
        given = (
            param.get("schema")
            if where == "body" or "schema" in param
            else {
                k: v
                for k, v in param.items()
                if k
                in ("type", "format", "enum", "items", "default", "minimum", "maximum", "pattern")
            }
        )
        schema = ctx.schema(given)
        key = "body" if where == "body" else safe_name(param["name"], "param")
        properties[key] = {**schema, "x-in": where}
        if isinstance(param.get("description"), str) and isinstance(properties[key], dict):
            properties[key]["description"] = param["description"]
        if param.get("required") is True or where == "path":
            required.append(key)
    body = ctx.resolver.deref(op.get("requestBody"))
    if isinstance(body, dict) and (body_schema := _content_schema(body.get("content"), ctx)):
        media = _media(body["content"])
        properties["body"] = {**body_schema, "x-in": "body"} | (
            {} if "json" in media else {"x-content-type": media[:100]}
        )
        if body.get("required") is True:
            required.append("body")
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = sorted(set(required))
    return clean_schema(schema)


def _output(op: dict[str, Any], ctx: _Context) -> dict[str, Any] | None:
    responses = op.get("responses")
    if not isinstance(responses, dict):
        return None
    for code in ("200", "201", "202", "2XX", "2xx", 200, 201, 202, "default"):
        response = ctx.resolver.deref(responses.get(code))
        if not isinstance(response, dict):
            continue
        if isinstance(response.get("schema"), dict):  # Swagger 2
            return clean_schema(ctx.schema(response["schema"]))
        if schema := _content_schema(response.get("content"), ctx):
            return schema
    return None


def _media(content: dict[str, Any]) -> str:
    """The media type read of a request or response body: JSON if offered, else the first."""
    media = next((m for m in content if isinstance(m, str) and "json" in m), next(iter(content)))
    return str(media)


def _content_schema(content: Any, ctx: _Context) -> dict[str, Any] | None:
    if not isinstance(content, dict) or not content:
        return None
    entry = content.get(_media(content))
    schema = entry.get("schema") if isinstance(entry, dict) else None
    return clean_schema(ctx.schema(schema)) if isinstance(schema, dict) else None


def _auth(spec: dict[str, Any], op: dict[str, Any]) -> tuple[Auth, str | None]:
    """(auth, scope) from the operation's security, else the document's."""
    security = op.get("security", spec.get("security"))
    if not isinstance(security, list):
        return "unknown", None
    requirements = [req for req in security if isinstance(req, dict)]
    if not requirements or any(not req for req in requirements):
        return "none", None  # [] or an empty alternative: calling without credentials works
    components = given if isinstance(given := spec.get("components"), dict) else {}
    schemes = components.get("securitySchemes", spec.get("securityDefinitions"))
    schemes = schemes if isinstance(schemes, dict) else {}
    for name, scopes in requirements[0].items():
        scheme = given if isinstance(given := schemes.get(name), dict) else {}
        kind = str(scheme.get("type", "")).lower()
        scope = (
            " ".join(s for s in scopes if isinstance(s, str))[:200]
            if isinstance(scopes, list)
            else ""
        )
        return AUTH_TYPES.get(kind, "unknown"), scope or None
    return "unknown", None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def spec_words(spec: dict[str, Any], title: Any = None) -> str:
    """The index text of a whole API: ``title`` (its info.title by default), its description
    and the tags' names and descriptions, which name and describe the API's parts ("pet:
    Everything about your Pets")."""
    info = as_dict(spec.get("info"))
    words = [info.get("title") if title is None else title, info.get("description")]
    for tag in [as_dict(tag) for tag in as_list(spec.get("tags"))[:64]]:
        words += [tag.get("name"), tag.get("description")]
    return index_words(*words)


def spec_title(spec: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(site name, site description, site about): ``info``, and the tags (``spec_words``)."""
    info = as_dict(spec.get("info"))
    about = spec_words(spec, beyond(info.get("title"), TITLE_MAX))
    description = clean_text(info.get("description")) or None
    return (
        clean_text(info.get("title"), TITLE_MAX) or None,
        description,
        about if about and about != description else None,
    )

"""Rules the facade enforces whatever the format: bounded actions and diagnostics, unique
names, flags on endpoints that leave the site, use plain http on an https site, or point at a
private address, each flow's auth, scope and cost worked out from its steps
(registry.model.flow_terms), and a diagnostic for an input schema prepare cannot use (one that
references outside itself, or is too large once its references are expanded:
registry.model.schema_bounds)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from registry.formats._hints import with_hint
from registry.model.domains import same_registrable
from registry.model.flow_terms import flow_terms
from registry.model.schema_bounds import schema_problem
from registry.model.schemas import Action, Diagnostic, Flow, Manifest
from registry.model.urls import is_private_host, key_host, same_origin, site_of

MAX_ACTIONS = 256
MAX_DIAGNOSTICS = 100


def enforce(manifest: Manifest, url: str, site: str) -> Manifest:
    """Rules that hold whatever the format: caps, unique names, endpoint flags."""
    diagnostics = manifest.diagnostics
    actions = manifest.actions
    if len(actions) > MAX_ACTIONS:
        diagnostics.append(
            Diagnostic(
                code="too-many-actions",
                message=(f"{len(actions)} actions; only the first {MAX_ACTIONS} are kept"),
                hint="split the manifest, or list only the actions agents need",
            )
        )
        actions = actions[:MAX_ACTIONS]
    actions = _unique(actions, "$.actions", diagnostics)
    flows = _unique(manifest.flows, "$.flows", diagnostics)
    https_site = urlsplit(url).scheme == "https"
    actions = [_flag_endpoint(action, site, https_site, diagnostics) for action in actions]
    for action in actions:
        if (problem := schema_problem(action.input_schema)) is not None:
            diagnostics.append(
                Diagnostic(
                    code="unusable-schema",
                    path=_path(action),
                    message=(f"{action.name}: {problem}; agents cannot prepare a call to it"),
                )
            )
    if len(diagnostics) > MAX_DIAGNOSTICS:
        dropped = len(diagnostics) - MAX_DIAGNOSTICS
        diagnostics = diagnostics[:MAX_DIAGNOSTICS]
        diagnostics.append(
            Diagnostic(
                code="truncated", severity="info", message=f"{dropped} more diagnostics left out"
            )
        )
    by_name = {action.name: action for action in actions}
    endpoints = _public_endpoints(manifest.endpoints, site, diagnostics)
    return manifest.model_copy(
        update={
            "endpoints": endpoints,
            "actions": actions,
            "flows": [_with_terms(flow, by_name) for flow in flows],
            "diagnostics": [with_hint(d) for d in diagnostics],
        }
    )


def _public_endpoints(
    endpoints: dict[str, str], site: str, diagnostics: list[Diagnostic]
) -> dict[str, str]:
    """A manifest's named endpoints (receipts, refunds...) on a private or reserved address
    are not published, as an action's are not (docs/RELIABILITY.md 19)."""
    kept = {}
    for name, url in endpoints.items():
        if is_private_host(site_of(url)) and not is_private_host(key_host(site)):
            diagnostics.append(
                Diagnostic(
                    code="private-endpoint",
                    path=f"$.endpoints.{name}",
                    message=f"{name}: endpoint host {site_of(url)} is a private address",
                    hint="use a public host name; agents cannot reach private addresses",
                )
            )
        else:
            kept[name] = url
    return kept


def _with_terms(flow: Flow, actions: dict[str, Action]) -> Flow:
    """The flow's auth, scope and cost from its steps, unless its format worked them out."""
    if (flow.auth, flow.scope, flow.cost) != ("unknown", None, None):
        return flow
    return flow.model_copy(update=flow_terms(flow.steps, actions))


def _unique(items: list[Any], path: str, diagnostics: list[Diagnostic]) -> list[Any]:
    seen: set[str] = set()
    kept = []
    for index, item in enumerate(items):
        if item.name in seen:
            diagnostics.append(
                Diagnostic(
                    code="duplicate-name",
                    path=f"{path}[{index}]",
                    message=f"{item.name!r} is already used; dropped",
                )
            )
            continue
        seen.add(item.name)
        kept.append(item)
    return kept


def _path(action: Action) -> str:
    # Formats place actions differently, so point at the action by its (unique) name.
    return f"$.actions[?(@.name=='{action.name}')]"


def _flag_endpoint(
    action: Action, site: str, https_site: bool, diagnostics: list[Diagnostic]
) -> Action:
    if not action.endpoint:
        return action
    path, host = _path(action), site_of(action.endpoint)
    # A private site (a --allow-private deployment) may of course use private endpoints.
    if is_private_host(host) and not is_private_host(key_host(site)):
        diagnostics.append(
            Diagnostic(
                code="private-endpoint",
                path=path,
                message=(f"{action.name}: endpoint host {host} is a private or reserved address"),
                hint="use a public host name; agents cannot reach private addresses",
            )
        )
        return action.model_copy(update={"same_origin": False, "verified": False})
    if https_site and action.endpoint.startswith("http://"):
        diagnostics.append(
            Diagnostic(
                code="insecure-endpoint",
                path=path,
                message=(f"{action.name}: plain http endpoint on an https site"),
                hint="serve the endpoint over https",
            )
        )
    if not same_origin(action.endpoint, site):
        owned = same_registrable(host, site_of(f"https://{site}/"))
        a_subdomain, publish_there = "a subdomain of it", "publish the manifest there"
        diagnostics.append(
            Diagnostic(
                code="cross-origin-endpoint",
                path=path,
                message=f"{action.name}: endpoint host {host} is not {site} or {a_subdomain}",
                hint=f"serve the endpoint from {site} or a subdomain, or {publish_there}",
            )
        )
        return action.model_copy(update={"same_origin": False, "verified": owned})
    return action.model_copy(update={"same_origin": True, "verified": True})

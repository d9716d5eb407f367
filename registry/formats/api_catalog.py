"""RFC 9727 API catalogs: a linkset (RFC 9264 JSON) whose ``service-desc`` links name OpenAPI
documents; their operations become actions.

Specs: https://www.rfc-editor.org/rfc/rfc9727, https://www.rfc-editor.org/rfc/rfc9264. Served
at ``/.well-known/api-catalog`` (``application/linkset+json``). The catalog itself describes no
operation: each ``service-desc`` is listed in references for the crawler, and read through
``refs`` when the caller has it. Some sites put ``{"rel": "service-desc", "href"}`` objects in
``item``; those count too.
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import Diagnostics, as_dict, as_list, diag
from registry.formats._openapi import is_openapi, operations
from registry.formats._references import References
from registry.model.schemas import Action, Manifest

NAME = "api-catalog"
PATHS = ("/.well-known/api-catalog",)
LINK_RELS = ("api-catalog",)
CROSS_HOST_REFERENCES = True  # service-desc links name API hosts
MAX_CONTEXTS, MAX_LINKS = 64, 16


def matches(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("linkset"), list)


def site_url(data: dict[str, Any]) -> Any:
    """The first link context's anchor: the API (on the site) the links describe."""
    return next((as_dict(c).get("anchor") for c in as_list(data.get("linkset"))[:1]), None)


def to_manifest(
    data: dict[str, Any], url: str, site: str, refs: References | None = None
) -> Manifest:
    refs = refs or References(url)
    diags: Diagnostics = []
    actions: list[Action] = []
    descs = _service_descs(data)
    for path, href in descs:
        spec = refs.get(href, path, diags)
        if spec is not None and not is_openapi(spec):
            diag(
                diags,
                "invalid-reference",
                path,
                "service-desc is not an OpenAPI document",
                hint="point service-desc at the API's OpenAPI description",
            )
        elif spec is not None:
            actions += [a for _, a in operations(spec, refs.add(href) or url, diags)]
    if not descs:
        diag(
            diags,
            "no-actions",
            "$.linkset",
            "no service-desc link; no operations to read",
            "warning",
            'add {"service-desc": [{"href": ".../openapi.json"}]} to each API',
        )
    elif not actions:
        diag(
            diags,
            "references-only",
            "$.linkset",
            "operations come from the service-desc documents listed in references",
            "info",
        )
    return Manifest(site=site, url=url, format=NAME, actions=actions, diagnostics=diags)


def _service_descs(data: dict[str, Any]) -> list[tuple[str, Any]]:
    found = []
    for index, context in enumerate(as_list(data.get("linkset"))[:MAX_CONTEXTS]):
        context = as_dict(context)
        for i, link in enumerate(as_list(context.get("service-desc"))[:MAX_LINKS]):
            found.append((f"$.linkset[{index}]['service-desc'][{i}]", as_dict(link).get("href")))
        for i, link in enumerate(as_list(context.get("item"))[:MAX_LINKS]):
            if as_dict(link).get("rel") == "service-desc":
                found.append((f"$.linkset[{index}].item[{i}]", as_dict(link).get("href")))
    return [(path, href) for path, href in found if isinstance(href, str)]

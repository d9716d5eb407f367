"""OpenAPI 3.0/3.1 and Swagger 2.0 documents (JSON or YAML): each operation one action.

Specs: https://spec.openapis.org/oas/v3.1.0, https://swagger.io/specification/v2/. Found where
other documents point (agents.json ``sources``, ai-plugin ``api.url``, api-catalog
``service-desc``, ``<link rel="service-desc">``) and at the usual paths below. Local ``$ref``s
are resolved with depth and size caps (``_jsonref``); operations are read by ``_openapi``.
"""

from __future__ import annotations

import re
from typing import Any

from registry.formats._common import Diagnostics, diag
from registry.formats._openapi import base_url, is_openapi, operations, spec_title
from registry.formats._references import References
from registry.model.schemas import Manifest

NAME = "openapi"
PATHS = ("/openapi.json", "/.well-known/openapi.json", "/openapi.yaml", "/swagger.json")
LINK_RELS = ("service-desc",)
# Names OpenAPI documents go by that are not probed: "swagger.yaml", "openapi-v3.json"...
FILE_NAME = re.compile(r"(?:openapi|swagger)[^/]*\.(?:json|ya?ml)$", re.IGNORECASE)


def matches(data: Any) -> bool:
    # "paths" + "info" without a version is still an API description (one real spec
    # starts "penapi: 3.0.1"): read it, and say what is missing.
    return is_openapi(data) or (isinstance(data, dict) and {"paths", "info"} <= data.keys())


def site_url(data: dict[str, Any]) -> str | None:
    """Where the operations live: servers[0], or Swagger's host (relative ones say nothing)."""
    return base_url(data, "") or None


def to_manifest(
    data: dict[str, Any], url: str, site: str, refs: References | None = None
) -> Manifest:
    diags: Diagnostics = []
    if not is_openapi(data):
        diag(
            diags,
            "missing-field",
            "$.openapi",
            "no openapi (or swagger) version field",
            hint='start the document with "openapi": "3.1.0"',
        )
    actions = [action for _, action in operations(data, url, diags)]
    if not actions and not any(d.severity == "error" for d in diags):
        diag(
            diags,
            "no-actions",
            "$.paths",
            "the document lists no operations",
            hint="describe at least one operation under paths",
        )
    name, description, about = spec_title(data)
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        site_name=name,
        site_description=description,
        site_about=about,
        actions=actions,
        diagnostics=diags,
    )

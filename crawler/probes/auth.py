"""What a 401 or 403 says of how to authenticate: the RFC 9728 protected-resource metadata its
``WWW-Authenticate`` header names (``resource_metadata="https://..."``), read within the probe's
bounds and kept only in its few public fields."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2

from crawler.probes.transport import Late, NotAsked, Refused, TooLarge, read

_RESOURCE_METADATA = re.compile(r'resource_metadata\s*=\s*"([^"]{1,2048})"', re.IGNORECASE)
KEPT = ("resource", "authorization_servers", "scopes_supported", "bearer_methods_supported")
METADATA_MAX_BYTES = 64 * 1024


def metadata_url(response: httpx2.Response) -> str | None:
    header = response.headers.get("www-authenticate", "")[:4096]
    match = _RESOURCE_METADATA.search(header)
    return match.group(1) if match else None


def protected_resource(client: httpx2.Client, url: str, deadline: float) -> dict[str, Any] | None:
    """The metadata document's public fields, or None when it cannot be read as one."""
    try:
        with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                return None
            data = json.loads(read(response, METADATA_MAX_BYTES, deadline))
    except (httpx2.HTTPError, NotAsked, Refused, TooLarge, Late, ValueError):  # the verdict stands
        return None
    if not isinstance(data, dict) or not isinstance(data.get("resource"), str):
        return None
    return {key: _bounded(data[key]) for key in KEPT if key in data}


def _bounded(value: Any) -> Any:
    if isinstance(value, list):
        return [str(v)[:300] for v in value[:16] if isinstance(v, str)]
    return str(value)[:300]

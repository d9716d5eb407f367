"""OpenAI plugin manifests (``ai-plugin.json``, ``"schema_version": "v1"``): one plugin-level
action, plus the operations of the OpenAPI document ``api.url`` names.

Spec: the (retired) OpenAI plugin manifest, https://platform.openai.com/docs/plugins. Served at
``/.well-known/ai-plugin.json``, and cloned at ``/.well-known/agents.json``; plugin-store
records that wrap the manifest in ``{"manifest": {...}}`` are unwrapped. The OpenAPI document
is read through ``refs`` (listed in references when not available yet); its operations take
the plugin's auth when they declare none.
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import (
    Diagnostics,
    as_dict,
    described,
    diag,
    index_words,
    title_from,
)
from registry.formats._openapi import is_openapi, operations, spec_words
from registry.formats._references import References
from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Auth, Manifest

NAME = "ai-plugin"
PATHS = ("/.well-known/ai-plugin.json",)
CROSS_HOST_REFERENCES = True  # api.url: the OpenAPI is often served by the API host
_AUTH: dict[str, Auth] = {
    "none": "none",
    "service_http": "api_key",
    "user_http": "api_key",
    "oauth": "oauth2",
}


def _plugin(data: Any) -> dict[str, Any] | None:
    if isinstance(data, dict) and isinstance(data.get("manifest"), dict):
        data = data["manifest"]  # a plugin-store record
    if (
        isinstance(data, dict)
        and "schema_version" in data
        and ("name_for_model" in data or "description_for_model" in data)
    ):
        return data
    return None


def matches(data: Any) -> bool:
    return _plugin(data) is not None


def site_url(data: Any) -> Any:
    """The OpenAPI's URL: a plugin names no site of its own, and its API is the site's."""
    return as_dict(as_dict(_plugin(data)).get("api")).get("url")


def to_manifest(data: Any, url: str, site: str, refs: References | None = None) -> Manifest:
    refs = refs or References(url)
    plugin = _plugin(data) or {}
    diags: Diagnostics = []
    auth = _AUTH.get(str(as_dict(plugin.get("auth")).get("type", "")).lower(), "unknown")
    actions = [a for a in [_plugin_action(plugin, auth, diags)] if a]
    api, api_words = as_dict(plugin.get("api")), ""
    if not isinstance(api.get("url"), str):
        diag(
            diags,
            "missing-field",
            "$.api.url",
            "no OpenAPI document named",
            "warning",
            'add "api": {"type": "openapi", "url": "https://.../openapi.yaml"}',
        )
    elif (spec := refs.get(api["url"], "$.api.url", diags)) is not None:
        if is_openapi(spec):
            actions += [
                a if a.auth != "unknown" else a.model_copy(update={"auth": auth})
                for _, a in operations(spec, refs.add(api["url"]) or url, diags)
            ]
            api_words = spec_words(spec)
        else:
            diag(
                diags,
                "invalid-reference",
                "$.api.url",
                "api.url is not an OpenAPI document",
                "error",
                "point api.url at the plugin's OpenAPI (JSON or YAML)",
            )
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        actions=actions,
        diagnostics=diags,
        site_name=clean_text(plugin.get("name_for_human"), TITLE_MAX) or None,
        site_description=clean_text(plugin.get("description_for_human")) or None,
        # The whole plugin is the site: what it says to the model (often what it
        # is for, past the display cap) and its API's info and tags are in every
        # action's document.
        site_about=index_words(
            plugin.get("description_for_human"), plugin.get("description_for_model"), api_words
        )
        or None,
    )


def _plugin_action(plugin: dict[str, Any], auth: Auth, diags: Diagnostics) -> Action | None:
    raw = plugin.get("name_for_model")
    if not isinstance(raw, str) or not raw.strip():
        diag(
            diags,
            "missing-field",
            "$.name_for_model",
            "no name_for_model; no plugin action",
            hint="name_for_model is the plugin's machine name",
        )
        return None
    name = safe_name(raw)
    # No about of its own: its whole text is the site's (site_about), in its document too.
    description, _ = described(
        plugin.get("description_for_model") or plugin.get("description_for_human"),
        "$.description_for_model",
        diags,
    )
    # The plugin as a whole: what it does is unknown, so "write" (never guess "read").
    return Action(
        name=name,
        title=clean_text(plugin.get("name_for_human"), TITLE_MAX) or title_from(name),
        description=description,
        effect="write",
        auth=auth,
    )

"""MCP servers: registry ``server.json`` files and the ad-hoc "server cards" sites publish.

Specs: https://modelcontextprotocol.io (server.json, schemas 2025-07-09 .. 2025-12-11, and the
legacy ``version_detail`` shape), SEP-1649 server cards. Found at ``/server.json``,
``/.well-known/mcp.json``, ``/.well-known/mcp/server-card.json``, at ``<streamable-http-url>/
server-card`` (a server.json's remote: its tools are read from there too, registry.formats.
_server_cards) and in catalog entries (the MCP Catalog's too, which ard reads). Real
cards come in at least three shapes (``serverInfo`` + ``transport``; server.json-like
``name`` + ``remotes``; a bare ``tools`` list), so fields are read from wherever they are.
The server itself is one action (a resource agents connect to, at its remote URL: as strong as
its strongest tool, else as its description's leading verb says); each listed tool is another
action on the same endpoint, ``x-jsonrpc`` in its input schema telling prepare its
``tools/call`` (registry.calls.protocols). A list of servers (a registry seed) or a registry API
page (``{"servers": [{"server": ...}]}``) gives one action per server.
"""

from __future__ import annotations

import re
from typing import Any

from registry.formats._common import (
    Diagnostics,
    as_dict,
    as_list,
    described,
    diag,
    site_text,
    title_from,
)
from registry.formats._references import References
from registry.formats._server_cards import CARD_MEDIA_TYPE, CARD_PATH, card_url, streamable_urls
from registry.model.effects import STRENGTH, effect_of_text, infer_effect, strongest
from registry.model.sanitize import TITLE_MAX, clean_schema, clean_text, safe_name
from registry.model.schemas import Action, Effect, Manifest
from registry.model.urls import absolute

NAME = "mcp"
# The MCP Catalog (SEP-2127's discovery) is an AI Catalog: registry.formats.ard reads it.
PATHS = (
    "/.well-known/mcp.json",
    "/.well-known/mcp/server-card.json",
    "/server.json",
    "/.well-known/mcp/catalog.json",
)
PROBE = "handshake"  # liveness (crawler/probes)
CROSS_HOST_REFERENCES = True  # remotes and cards live on the server's host
ACCEPT = {CARD_PATH: CARD_MEDIA_TYPE}  # a server's card, at <streamable-http-url>/server-card
MAX_TOOLS = 128
MAX_VERB_WORDS = 6  # leading words of a tool's description read for its effect
_WORD = re.compile(r"[A-Za-z]+")
_STRONGER: frozenset[Effect] = frozenset({"send", "spend", "delete"})
_MORE: dict[str, Effect] = {"charge": "spend", "purchase": "spend", "transfer": "spend"}
# How prepare calls an entry (registry.calls.protocols): a tool by tools/call; a server not.
RPC_KEY = "x-jsonrpc"
_CONNECT = {
    "refuse": "this is an MCP server, not one of its tools: connect to it with an MCP client "
    "(initialize, then tools/list), or prepare one of its tools"
}
_SERVER_KEYS = {"remotes", "packages", "version_detail", "serverInfo", "mcp_version"}
# Keys that, next to a tools list, say "MCP server" rather than "some agents.json"
_TRANSPORT_KEYS = {"serverUrl", "transport", "protocolVersion", "endpoint"}


def _is_server(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    schema = data.get("$schema")
    if isinstance(schema, str) and "modelcontextprotocol" in schema:
        return True
    tools = data.get("tools", as_dict(data.get("capabilities")).get("tools"))
    if not isinstance(tools, list):
        return bool(_SERVER_KEYS & data.keys())
    return bool((_SERVER_KEYS | _TRANSPORT_KEYS) & data.keys()) or any(
        "inputSchema" in as_dict(t) for t in tools[:16]
    )


def _servers(data: Any) -> list[Any] | None:
    """The server list of a registry page or seed; None for a single server."""
    if isinstance(data, dict) and isinstance(data.get("servers"), list):
        # {"servers": [{"server": {...}}]}; OpenAPI also has "servers", holding URLs
        found = [
            item["server"]
            for item in data["servers"]
            if isinstance(as_dict(item).get("server"), dict)
        ]
        return found or None
    if isinstance(data, list) and data and all(_is_server(item) for item in data[:8]):
        return data
    return None


def matches(data: Any) -> bool:
    return _is_server(data) or bool(_servers(data))


def site_url(data: Any) -> str | None:
    """A single server's remote or endpoint URL; a registry page lists many sites, so none."""
    return _endpoint(data, "") if isinstance(data, dict) and _servers(data) is None else None


def to_manifest(data: Any, url: str, site: str, refs: References | None = None) -> Manifest:
    diags: Diagnostics = []
    servers = _servers(data)
    if servers is not None:
        actions = [
            a
            for i, s in enumerate(servers[:256])
            if (a := _server(as_dict(s), url, f"$.servers[{i}]", diags))
        ]
        return Manifest(site=site, url=url, format=NAME, actions=actions, diagnostics=diags)
    tools = data.get("tools", as_dict(data.get("capabilities")).get("tools"))
    # A live tools/list answer (crawler/probes) names no server: its tools stand alone.
    bare = isinstance(tools, list) and not _named(data)
    server = None if bare else _server(data, url, "$", diags)
    endpoint = server.endpoint if server else _endpoint(data, url)
    listed = [
        a
        for i, tool in enumerate(as_list(tools)[:MAX_TOOLS])
        if (a := _tool(tool, endpoint, f"$.tools[{i}]", diags))
    ]
    named = {a.name for a in ([server] if server else []) + listed}
    listed += _card_tools(data, url, refs, named, diags)
    if server and listed:  # connecting gives an agent every tool: as strong as the strongest
        server = server.model_copy(update={"effect": strongest([a.effect for a in listed])})
    actions = ([server] if server else []) + listed
    info = as_dict(data.get("serverInfo"))
    # Said (and diagnosed) once already, by the server's action.
    description, about = site_text(data.get("description") or info.get("description"), "$", [])
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        actions=actions,
        diagnostics=diags,
        site_name=clean_text(data.get("title") or data.get("name") or info.get("name"), TITLE_MAX)
        or None,
        site_description=description,
        site_about=about,
    )


def _named(data: dict[str, Any]) -> bool:
    return any(
        isinstance(v, str) and v.strip()
        for v in (data.get("name"), as_dict(data.get("serverInfo")).get("name"))
    )


def _card_tools(
    data: dict[str, Any], url: str, refs: References | None, known: set[str], diags: Diagnostics
) -> list[Action]:
    """The tools the cards at the server's streamable HTTP URLs list that this document does
    not (a card read is a reference: the crawler fetches it, and a later pass reads it)."""
    found: list[Action] = []
    for endpoint in streamable_urls(data) if refs is not None else []:
        where = card_url(endpoint)
        if where == url.split("#", 1)[0]:
            continue  # this document is that card
        card = as_dict(refs.get(where, "$.remotes", diags))  # type: ignore[union-attr]
        for i, tool in enumerate(as_list(card.get("tools"))[:MAX_TOOLS]):
            action = _tool(tool, endpoint, f"{where}$.tools[{i}]", diags)
            if action and action.name not in known and len(known) < MAX_TOOLS:
                known.add(action.name)
                found.append(action)
    return found


def _endpoint(data: dict[str, Any], url: str) -> str | None:
    candidates = [as_dict(r).get("url") for r in as_list(data.get("remotes"))[:8]]
    transport = data.get("transport")
    candidates += [
        as_dict(transport).get("url"),
        data.get("serverUrl"),
        data.get("endpoint"),
        data.get("url"),
    ]
    return next((e for c in candidates if (e := absolute(c, url))), None)


def _server(data: dict[str, Any], url: str, path: str, diags: Diagnostics) -> Action | None:
    info = as_dict(data.get("serverInfo"))
    raw = data.get("name") if isinstance(data.get("name"), str) else info.get("name")
    if not isinstance(raw, str) or not raw.strip():
        diag(
            diags,
            "missing-field",
            f"{path}.name",
            "a server needs a name; skipped",
            hint="name the server, e.g. io.github.owner/server",
        )
        return None
    name = safe_name(raw.rsplit("/", 1)[-1])
    title = clean_text(
        data.get("title") or data.get("displayName") or data.get("display_name"), TITLE_MAX
    )
    description, about = described(
        data.get("description") or info.get("description"), f"{path}.description", diags
    )
    endpoint = _endpoint(data, url)
    # Connecting is not itself a read or a write: what its description says it does, else
    # unknown (write); to_manifest raises it to its strongest tool's.
    return Action(
        name=name,
        title=title or title_from(name),
        description=description,
        about=about,
        endpoint=endpoint,
        method="POST" if endpoint else None,
        effect=effect_of_text(description) or "write",
        input_schema={"type": "object", RPC_KEY: _CONNECT},
    )


def _tool(tool: Any, endpoint: str | None, path: str, diags: Diagnostics) -> Action | None:
    tool = as_dict(tool)
    raw = tool.get("name")
    if not isinstance(raw, str) or not raw.strip():
        diag(diags, "action-skipped", path, "a tool needs a name; skipped")
        return None
    name = safe_name(raw)
    hints = as_dict(tool.get("annotations"))
    schema = tool.get("inputSchema", tool.get("input_schema"))
    output = tool.get("outputSchema")
    description, about = described(tool.get("description"), f"{path}.description", diags)
    return Action(
        name=name,
        title=clean_text(hints.get("title") or tool.get("title"), TITLE_MAX) or title_from(name),
        description=description,
        about=about,
        endpoint=endpoint,
        method="POST" if endpoint else None,
        effect=_effect(hints, name, tool.get("description")),
        input_schema=clean_schema(
            {
                **(schema if isinstance(schema, dict) else {"type": "object"}),
                RPC_KEY: {"method": "tools/call", "tool": raw},
            }
        ),
        output_schema=clean_schema(output) if isinstance(output, dict) else None,
    )


def _effect(hints: dict[str, Any], name: str, description: Any) -> Effect:
    """MCP tool annotations first (readOnlyHint -> read, destructiveHint -> delete), then the
    name's verb; a tool still ``write`` is more when its description says it sends, spends
    or deletes (its leading words: "Sends an email", "Charges the card")."""
    if hints.get("readOnlyHint") is True:
        return "read"
    if hints.get("destructiveHint") is True:
        return "delete"
    effect = infer_effect(None, None, name)
    if effect != "write" or not isinstance(description, str):
        return effect
    found = {_said_effect(word) for word in _WORD.findall(description[:200])[:MAX_VERB_WORDS]}
    return next((e for e in STRENGTH if e in found and e in _STRONGER), "write")


def _said_effect(word: str) -> Effect | None:
    word = word.lower()
    for stem in (word, word.removesuffix("s"), word.removesuffix("es")):
        effect = _MORE.get(stem) or infer_effect(None, None, stem)
        if effect in _STRONGER:
            return effect
    return None

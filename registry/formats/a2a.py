"""A2A agent cards (protocol 0.2, 0.3 and 1.0): each skill one action.

Spec: https://a2a-protocol.org/latest/specification/ (AgentCard, AgentSkill). Served at
``/.well-known/agent-card.json`` (0.3+) and ``/.well-known/agent.json`` (0.2). Every skill is
reached through the agent's interface, so each action's endpoint is the card's ``url`` (0.2,
0.3) or its first ``supportedInterfaces`` entry (1.0). A2A calls are JSON-RPC POSTs of a
message (``x-jsonrpc`` in each input schema: prepare plans ``message/send``); the effect comes
from the leading verb of the skill's id, name or description, else ``read`` when its examples
are all questions ("What's the weather in Paris?"), else ``write``.
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import (
    Diagnostics,
    as_dict,
    as_list,
    described,
    diag,
    named_manifest,
    title_from,
)
from registry.formats._openapi import AUTH_TYPES
from registry.formats._references import References
from registry.model.effects import effect_of_text
from registry.model.sanitize import TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Auth, Manifest
from registry.model.urls import absolute

NAME = "a2a"
PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
PROBE = "card"  # liveness (crawler/probes)
MAX_SKILLS = 128
MAX_WORDS = 16  # tags, and examples, read of a skill for the index
_CARD_KEYS = {
    "url",
    "supportedInterfaces",
    "protocolVersion",
    "defaultInputModes",
    "capabilities",
    "preferredTransport",
    "additionalInterfaces",
}
_INPUT = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "what to ask the agent, in natural language"}
    },
    "required": ["message"],
    # how prepare calls a skill: registry.calls.protocols
    "x-jsonrpc": {"method": "message/send", "message": "message"},
}


def matches(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return False
    if isinstance(data.get("skills"), list):
        return bool(_CARD_KEYS & data.keys())
    # A card without skills still announces itself by A2A's own fields (MCP cards share
    # capabilities and protocolVersion, but list tools).
    return "defaultInputModes" in data and "tools" not in data


def site_url(data: dict[str, Any]) -> str | None:
    """The card's interface URL: the agent is served there."""
    return _endpoint(data, "", [])


def to_manifest(
    data: dict[str, Any], url: str, site: str, refs: References | None = None
) -> Manifest:
    diags: Diagnostics = []
    endpoint = _endpoint(data, url, diags)
    auth = _auth(data)
    skills = data.get("skills")
    if not isinstance(skills, list) or not skills:
        diag(
            diags,
            "missing-field",
            "$.skills",
            "the card lists no skills; nothing to find",
            "error",
            "list what the agent can do under skills[] (id, name, description)",
        )
    actions = [
        a
        for i, skill in enumerate(as_list(skills)[:MAX_SKILLS])
        if (a := _skill(skill, endpoint, auth, f"$.skills[{i}]", diags))
    ]
    return named_manifest(data, diags, site=site, url=url, format=NAME, actions=actions)


def _endpoint(card: dict[str, Any], url: str, diags: Diagnostics) -> str | None:
    candidates = [card.get("url")]
    for key in ("supportedInterfaces", "additionalInterfaces", "interfaces"):
        candidates += [as_dict(item).get("url") for item in as_list(card.get(key))[:8]]
    candidates.append(card.get("endpoint"))
    endpoint = next((e for c in candidates if (e := absolute(c, url))), None)
    if endpoint is None:
        diag(
            diags,
            "missing-field",
            "$.url",
            "no interface URL; skills have no endpoint",
            hint="set url (0.3) or supportedInterfaces[0].url (1.0)",
        )
    return endpoint


def _auth(card: dict[str, Any]) -> Auth:
    schemes = as_dict(card.get("securitySchemes"))
    if not schemes and not card.get("security"):
        return "unknown"
    for scheme in schemes.values():
        kind = str(as_dict(scheme).get("type", "")).lower()
        if kind in AUTH_TYPES:
            return AUTH_TYPES[kind]
    return "unknown"


def _skill(
    skill: Any, endpoint: str | None, auth: Auth, path: str, diags: Diagnostics
) -> Action | None:
    skill = as_dict(skill)
    raw = skill.get("id") if isinstance(skill.get("id"), str) else skill.get("name")
    if not isinstance(raw, str) or not raw.strip():
        diag(diags, "action-skipped", path, "a skill needs an id", hint="give each skill an id")
        return None
    name = safe_name(raw)
    # The examples are how people will ask for it, the tags what it is about: the index reads
    # them all (about); the display keeps three examples.
    examples = [e for e in as_list(skill.get("examples"))[:MAX_WORDS] if isinstance(e, str)]
    tags = [t for t in as_list(skill.get("tags"))[:MAX_WORDS] if isinstance(t, str)]
    description, about = described(
        skill.get("description"), f"{path}.description", diags, (*tags, *examples)
    )
    if examples:
        description = clean_text(f"{description} Examples: {'; '.join(examples[:3])}")
    return Action(
        name=name,
        title=clean_text(skill.get("name"), TITLE_MAX) or title_from(name),
        description=description,
        about=about,
        method="POST" if endpoint else None,
        endpoint=endpoint,
        effect=effect_of_text(raw, skill.get("name"), skill.get("description"))
        or ("read" if examples and all(e.strip().endswith("?") for e in examples) else "write"),
        auth=auth,
        input_schema=_INPUT,
    )

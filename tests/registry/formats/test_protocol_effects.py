"""The effect of entries that describe themselves only in prose: an A2A skill without a verb
in its id, an MCP server without tools (issue 21: a weather skill is read, not write)."""

from __future__ import annotations

from typing import Any

import pytest

from registry.formats import a2a, mcp

URL = "https://agent.example/.well-known/agent-card.json"


def _card(**skill: Any) -> dict[str, Any]:
    return {
        "name": "Helper",
        "url": "https://agent.example/a2a",
        "protocolVersion": "0.3.0",
        "skills": [{"id": "skill", **skill}],
    }


@pytest.mark.parametrize(
    ("skill", "effect"),
    [
        (
            {"id": "weather", "name": "Weather", "description": "Gets the forecast for a city"},
            "read",
        ),
        (
            {"id": "weather", "name": "Weather", "examples": ["What's the weather in Oslo?"]},
            "read",
        ),
        ({"id": "tables", "name": "Tables", "description": "Reserve a table tonight"}, "spend"),
        ({"id": "notes", "name": "Notes", "description": "Find and delete old notes"}, "delete"),
        ({"id": "helper", "name": "Helper", "description": "Does things"}, "write"),
    ],
)
def test_an_a2a_skill_s_effect_comes_from_its_text(skill: dict[str, Any], effect: str) -> None:
    [action] = a2a.to_manifest(_card(**skill), URL, "agent.example").actions
    assert action.effect == effect


def test_an_mcp_server_without_tools_takes_its_description_s_verb() -> None:
    server = {"name": "weather", "description": "Get forecasts", "url": "https://w.example/mcp"}
    [action] = mcp.to_manifest(server, "https://w.example/server.json", "w.example").actions
    assert action.effect == "read"

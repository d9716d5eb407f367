"""Every format keeps the publisher's whole text for the index (Action.about,
Manifest.site_about) and its display text within the display caps; both are sanitised."""

from __future__ import annotations

import json
from typing import Any

import pytest

from registry.formats import normalise
from registry.formats._common import described
from registry.model.sanitize import DESCRIPTION_MAX, INDEX_TEXT_MAX
from registry.model.schemas import Diagnostic, Manifest, RawDocument

LONG = "Plans meals for the week from what is in the fridge. " * 8  # ~430 characters
WORD = "zanzibarite"  # said only past the display cap


def manifest_of(url: str, data: Any) -> Manifest:
    body = json.dumps(data).encode()
    return normalise(RawDocument(url=url, body=body, content_type="application/json"))


def plugin(model: str, human: str = "Meal plans.") -> dict[str, Any]:
    return {
        "schema_version": "v1",
        "name_for_model": "meals",
        "name_for_human": "Meals",
        "description_for_model": model,
        "description_for_human": human,
        "auth": {"type": "none"},
        "api": {"type": "openapi", "url": "https://meals.example/openapi.json"},
    }


# (URL, document, where the word past the cap must land: "site" or an action's name)
CASES = {
    "ai-plugin": (
        "https://meals.example/.well-known/ai-plugin.json",
        plugin(f"{LONG} {WORD}"),
        "site",
    ),
    "openapi": (
        "https://meals.example/openapi.json",
        {
            "openapi": "3.1.0",
            "info": {"title": "Meals", "description": "Meal plans."},
            "tags": [{"name": "planner", "description": f"Week plans, {WORD} style"}],
            "paths": {
                "/plan": {
                    "get": {
                        "operationId": "plan",
                        "summary": "Plan meals",
                        "description": f"{LONG} {WORD}",
                    }
                }
            },
        },
        "plan",
    ),
    "a2a": (
        "https://meals.example/.well-known/agent-card.json",
        {
            "name": "Meals",
            "url": "https://meals.example/a2a",
            "protocolVersion": "0.3.0",
            "description": "Meal plans.",
            "skills": [
                {
                    "id": "plan",
                    "name": "Plan",
                    "description": "Plans meals.",
                    "tags": [WORD],
                    "examples": ["a", "b", "c", "a week of dinners"],
                }
            ],
        },
        "plan",
    ),
    "ard": (
        "https://meals.example/.well-known/ai-catalog.json",
        {
            "entries": [
                {
                    "identifier": "urn:air:meals.example:plan",
                    "displayName": "Plan",
                    "url": "https://meals.example/mcp",
                    "description": LONG,
                    "representativeQueries": [f"q{i}" for i in range(9)] + [WORD],
                }
            ]
        },
        "plan",
    ),
    "mcp": (
        "https://meals.example/.well-known/mcp.json",
        {
            "name": "meals",
            "description": "Meal plans.",
            "tools": [
                {"name": "plan", "description": f"{LONG} {WORD}", "inputSchema": {"type": "object"}}
            ],
        },
        "plan",
    ),
    "agent-actions": (
        "https://meals.example/.well-known/agent-actions.json",
        {
            "schema": "agent-actions/0.1",
            "site": {"name": "Meals", "description": f"{LONG} {WORD}"},
            "actions": [
                {"name": "plan", "description": "Plans meals.", "method": "GET", "path": "/plan"}
            ],
        },
        "site",
    ),
    "schemaorg": (
        "https://meals.example/",
        {
            "@context": "https://schema.org",
            "@type": "WebSite",
            "name": "Meals",
            "url": "https://meals.example/",
            "potentialAction": {
                "@type": "SearchAction",
                "description": f"{LONG} {WORD}",
                "target": "https://meals.example/s?q={q}",
                "query-input": "required name=q",
            },
        },
        "SearchAction",
    ),
}


@pytest.mark.parametrize("fmt", CASES)
def test_long_text_reaches_the_index_text_not_the_display(fmt: str) -> None:
    url, data, where = CASES[fmt]
    manifest = manifest_of(url, data)
    assert manifest.format == fmt
    for action in manifest.actions:
        assert len(action.description) <= DESCRIPTION_MAX and WORD not in action.description
    if where == "site":
        assert WORD in (manifest.site_about or "")
        assert WORD not in (manifest.site_description or "")
    else:
        [action] = [a for a in manifest.actions if where in (a.name, a.type)]
        assert WORD in action.about
    assert not [d for d in manifest.diagnostics if d.code == "truncated"]  # a display cut


def test_an_ai_plugins_site_about_holds_both_descriptions_whole() -> None:
    url = "https://meals.example/.well-known/ai-plugin.json"
    manifest = manifest_of(url, plugin(f"{LONG} {WORD}", "Meal plans for busy people."))
    assert manifest.site_about == f"Meal plans for busy people. {LONG.strip()} {WORD}"
    assert manifest.site_description == "Meal plans for busy people."
    [action] = manifest.actions
    assert action.description.endswith("…") and action.about == ""  # its text is the site's


def test_short_text_has_no_about() -> None:
    manifest = manifest_of(*CASES["mcp"][:2])
    assert manifest.site_about is None  # "Meal plans." says it all
    short = manifest_of(
        "https://meals.example/.well-known/mcp.json",
        {
            "name": "meals",
            "description": "Meal plans.",
            "tools": [
                {"name": "plan", "description": "Plans meals.", "inputSchema": {"type": "object"}}
            ],
        },
    )
    assert [a.about for a in short.actions] == ["", ""]


def test_index_text_is_sanitised() -> None:
    hostile = (
        "<b>Plan</b> meals\u200b for the <script>steal()</script>week &lt;i&gt;now"
        "&lt;/i&gt; \u202eevil\u202c " + LONG + " <img src=x onerror=alert(1)> " + WORD
    )
    manifest = manifest_of(CASES["ai-plugin"][0], plugin(hostile))
    about = manifest.site_about or ""
    assert WORD in about and "Plan meals for the week now evil" in about
    for bad in ("<", ">", "script", "steal", "onerror", "\u200b", "\u202e", "&lt;"):
        assert bad not in about
        assert bad not in manifest.actions[0].description


def test_only_text_past_the_index_cap_is_reported() -> None:
    diags: list[Diagnostic] = []
    display, about = described("word " * 1000, "$.d", diags)  # 5,000 characters
    assert len(display) == DESCRIPTION_MAX and len(about) == INDEX_TEXT_MAX
    assert [(d.code, d.severity, d.path) for d in diags] == [("truncated", "info", "$.d")]
    diags.clear()
    display, about = described("word " * 500, "$.d", diags)  # cut for display only
    assert len(display) == DESCRIPTION_MAX and about == ("word " * 500).strip() and not diags


def test_an_ai_plugins_site_about_holds_its_apis_info_and_tags() -> None:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Meals API", "description": "Dinners."},
        "tags": [{"name": "pantry", "description": "What is in the cupboard"}],
        "paths": {"/plan": {"get": {"operationId": "plan"}}},
    }
    url = "https://meals.example/.well-known/ai-plugin.json"
    manifest = normalise(
        RawDocument(url=url, body=json.dumps(plugin("Plans meals.")).encode()),
        resolve=lambda _: json.dumps(spec).encode(),
    )
    assert [a.name for a in manifest.actions] == ["meals", "plan"]
    assert manifest.site_about == (
        "Meal plans. Plans meals. Meals API Dinners. pantry What is in the cupboard"
    )
    assert manifest.site_description == "Meal plans."
